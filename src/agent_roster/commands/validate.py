"""``validate``: check vaults and files, collecting every problem in one pass."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic, Severity
from agent_roster.errors import UsageError
from agent_roster.resolve.config import load_config
from agent_roster.vault.loader import VaultSnapshot, load_vault, locate_vault
from agent_roster.vault.profile_parser import parse_profile


class ValidationReport(NamedTuple):
    """What ``validate`` found: how many files it read and every diagnostic."""

    files: int
    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> int:
        return dx.count(self.diagnostics)[0]

    @property
    def warnings(self) -> int:
        return dx.count(self.diagnostics)[1]

    def failed(self, *, strict: bool = False) -> bool:
        """True when there are errors, or any warning under ``strict``."""
        return self.errors > 0 or (strict and self.warnings > 0)

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON shape of ``roster validate --format json``."""
        return {
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def validate(
    targets: Sequence[str | os.PathLike[str]], *, base: Path | None = None
) -> ValidationReport:
    """Validate each target: a vault folder (every file in its layout) or a single file
    (checked in the context of the vault it sits in, when it sits in one).

    Paths in diagnostics are relative to ``base`` (default: the current directory) so
    editors and CI annotations can open them."""
    base = base or Path.cwd()
    files = 0
    found: list[Diagnostic] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            snapshot = _load(path)
            files += snapshot.files
            found.extend(_rebase(d, path, base) for d in snapshot.all_diagnostics())
        elif path.is_file():
            files += 1
            found.extend(_validate_file(path, base))
        else:
            raise UsageError(
                f"{os.fspath(path)} does not exist",
                hint="pass a vault folder or a profile.md / MCP server file",
            )
    found.sort(key=lambda d: (d.path, d.line, d.column))
    return ValidationReport(files, tuple(found))


def _validate_file(path: Path, base: Path) -> list[Diagnostic]:
    located = locate_vault(path)
    if located is None:
        display = _display(path, base)
        parsed = parse_profile(path.read_bytes(), path=display)
        note = dx.make(
            "layout-unknown",
            "the file is not inside a vault's layout, so it was checked as a standalone profile",
            path=display,
            hint="vault files live at agent-types/<id>/profile.md or mcp-servers/<name>.md",
            severity=Severity.WARNING,
        )
        return [note, *parsed.diagnostics]
    root, rel = located
    snapshot = _load(root)
    return [_rebase(d, root, base) for d in snapshot.all_diagnostics() if d.path == rel]


def _load(root: Path) -> VaultSnapshot:
    # roster.toml names the embedded server and its extra commands: bare names of those
    # are known tools.
    embedded = load_config(root).config.embedded
    return load_vault(root, embedded=embedded.name, commands=embedded.commands)


def _rebase(diagnostic: Diagnostic, root: Path, base: Path) -> Diagnostic:
    display = _display(root / diagnostic.path, base)
    if display == diagnostic.path:
        return diagnostic
    return Diagnostic(
        path=display,
        line=diagnostic.line,
        column=diagnostic.column,
        severity=diagnostic.severity,
        code=diagnostic.code,
        message=diagnostic.message,
        hint=diagnostic.hint,
    )


def _display(path: Path, base: Path) -> str:
    relative = os.path.relpath(path, base)
    return Path(relative).as_posix() if not relative.startswith("..") else path.as_posix()
