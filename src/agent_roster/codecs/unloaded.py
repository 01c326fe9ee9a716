"""Files in a harness's agent folders that the harness does not load (issue 12 item 6).

Every harness passes over some files without a word: a wrong extension, a subfolder where
it does not look, a name it skips by rule. ``discover`` reports each one as a
``harness-ignored`` warning naming the harness's rule, so an agent the user meant to have is
never left out silently (README D13). Hidden names (``.DS_Store``, editor swap files) are left
alone unless the harness loads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent_roster.codecs.native_md import harness_diagnostic
from agent_roster.diagnostics import Diagnostic


def not_loaded(path: Path, harness: str, why: str, hint: str) -> Diagnostic:
    """The warning for one file or folder ``harness`` does not load, and why."""
    return harness_diagnostic(
        "harness-ignored",
        f"{harness} does not load {path.name}: {why}",
        path=str(path),
        hint=hint,
        warning=True,
    )


def report_not_loaded(
    folder: Path,
    loaded: Iterable[Path],
    out: list[Diagnostic],
    *,
    harness: str,
    rule: str,
    hint: str,
    recursive: bool,
) -> None:
    """Warn about every entry under ``folder`` not in ``loaded`` (the files the codec read):
    every other file, at any depth when the harness looks there (``recursive``), else the
    files and the subfolders directly in ``folder``. Hidden names are skipped."""
    if not folder.is_dir():
        return
    seen = set(loaded)
    entries = folder.rglob("*") if recursive else folder.iterdir()
    for path in sorted(entries):
        rel = path.relative_to(folder).parts
        if path in seen or any(part.startswith(".") for part in rel):
            continue
        if path.is_dir():
            if not recursive:
                why = f"it does not look into subfolders of {folder.name}/"
                out.append(not_loaded(path, harness, why, hint))
            continue
        out.append(not_loaded(path, harness, rule, hint))
