"""Starter knowledge packs (seed 000 section 4).

When a profile appears for the first time, the files of ``templates/knowledge/<id>/`` are
copied into ``agent-types/<id>/memory/``, tagged ``#starter`` so they can be told apart from
what the agent learns later. Existing files are never overwritten, and nothing outside the
vault is read or written.
"""

from __future__ import annotations

import os

from agent_roster.vault.paths import KNOWLEDGE, TEMPLATES, VaultLayout, segment_problem
from agent_roster.vault.writer import atomic_write

STARTER_TAG = "#starter"


def available_packs(layout: VaultLayout) -> set[str]:
    """The agent types that have a starter pack (listed once per sync, not once per file)."""
    folder = layout.root / TEMPLATES / KNOWLEDGE
    try:
        return {entry.name for entry in os.scandir(folder) if entry.is_dir()}
    except OSError:
        return set()


def copy_starter_knowledge(layout: VaultLayout, profile_id: str) -> list[str]:
    """Copy the pack for ``profile_id`` into its memory folder; returns the files written
    (vault-relative). Returns ``[]`` when there is no pack."""
    if segment_problem(profile_id) is not None:
        return []
    source = layout.knowledge_dir(profile_id)
    if not source.is_dir() or not layout.is_inside(source):
        return []
    target = layout.memory_dir(profile_id)
    written = []
    for item in sorted(source.iterdir()):
        if not item.is_file() or item.suffix != ".md" or item.name.startswith("."):
            continue
        if not layout.is_inside(item):
            continue
        destination = target / item.name
        if destination.exists():
            continue
        text = item.read_text(encoding="utf-8")
        if STARTER_TAG not in text:
            text = text.rstrip("\n") + f"\n\n{STARTER_TAG}\n"
        atomic_write(destination, text)
        written.append(destination.relative_to(layout.root).as_posix())
    return written
