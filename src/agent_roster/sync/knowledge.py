"""Starter knowledge packs (seed 000 section 4).

When a profile appears for the first time, the files of ``templates/knowledge/<id>/`` are
copied into ``agent-types/<id>/memory/``, tagged ``#starter`` so they can be told apart from
what the agent learns later. Existing files are never overwritten. Both folders go through
the vault guard (``vault/guard.py``): a pack or a ``memory`` folder that a symlink leads
outside the vault is refused with a diagnostic naming the link (issue 11), and every file of
a pack that is not copied says why (issue 12 item 6).
"""

from __future__ import annotations

import os

from agent_roster import diagnostics as dx
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import PathOutsideVaultError
from agent_roster.vault.guard import folder_problem, open_folder, read_diagnostic
from agent_roster.vault.paths import KNOWLEDGE, TEMPLATES, VaultLayout, segment_problem, shown
from agent_roster.vault.writer import write_in_vault

STARTER_TAG = "#starter"


def available_packs(layout: VaultLayout, out: list[Diagnostic] | None = None) -> set[str]:
    """The agent types that have a starter pack (listed once per sync, not once per file).
    A ``templates/knowledge`` that leads outside the vault has none (reported in ``out``)."""
    folder = layout.root / TEMPLATES / KNOWLEDGE
    problem = folder_problem(layout, (TEMPLATES, KNOWLEDGE))
    if problem is not None:
        if out is not None:
            out.append(problem)
        return set()
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries if entry.is_dir()}
    except OSError:
        return set()


def copy_starter_knowledge(
    layout: VaultLayout, profile_id: str, out: list[Diagnostic] | None = None
) -> list[str]:
    """Copy the pack for ``profile_id`` into its memory folder; returns the files written
    (vault-relative). Returns ``[]`` when there is no pack. Files not copied for a reason
    other than already being there are reported in ``out``."""
    found: list[Diagnostic] = []
    written: list[str] = []
    try:
        _copy(layout, profile_id, written, found)
    except PathOutsideVaultError as exc:
        found.extend(exc.diagnostics)
    if out is not None:
        out.extend(found)
    return written


def _copy(layout: VaultLayout, profile_id: str, written: list[str], out: list[Diagnostic]) -> None:
    if segment_problem(profile_id) is not None:
        return
    source = layout.knowledge_dir(profile_id)
    try:
        fd = open_folder(layout, source, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        with os.scandir(fd) as it:
            entries = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in it)
    finally:
        os.close(fd)
    source_rel = layout.relative(source)
    target = layout.memory_dir(profile_id)
    for name, is_folder in entries:
        if name.startswith("."):
            continue  # hidden: editor and Obsidian files
        rel = f"{source_rel}/{name}"
        problem = segment_problem(name)
        if is_folder or not name.endswith(".md") or problem is not None:
            out.append(_not_copied(rel, name, is_folder, problem))
            continue
        raw = read_diagnostic(layout, source / name, out)
        if raw is None:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            out.append(
                dx.make(
                    "encoding-invalid",
                    f"{shown(rel)} is not valid UTF-8; it was not copied",
                    path=shown(rel),
                    hint="save the file as UTF-8",
                )
            )
            continue
        if STARTER_TAG not in text:
            text = text.rstrip("\n") + f"\n\n{STARTER_TAG}\n"
        destination = target / name
        # Never overwrites: a file already there (the agent's own, or an earlier copy) stays.
        if write_in_vault(layout, destination, text):
            written.append(layout.relative(destination))


def _not_copied(rel: str, name: str, is_folder: bool, problem: str | None) -> Diagnostic:
    if problem is not None:
        return dx.make(
            "name-unsafe",
            f"{shown(rel)} is not copied: the file name {shown(name)!r} {problem}",
            path=shown(rel),
            hint="rename it: use letters, digits, '-' and '_'",
        )
    why = (
        "starter packs are flat; subfolders are not copied"
        if is_folder
        else ("only .md files are copied")
    )
    return dx.make(
        "layout-unknown",
        f"{shown(rel)} is not copied into memory: {why}",
        path=shown(rel),
        hint="put the pack's notes directly in its folder as .md files",
    )
