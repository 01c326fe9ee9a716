"""``init``: create a vault skeleton from the starter templates, never overwriting."""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import NamedTuple

from agent_roster.vault.writer import atomic_write


class InitResult(NamedTuple):
    root: Path
    created: tuple[str, ...]
    skipped: tuple[str, ...]


def init_vault(target: str | os.PathLike[str]) -> InitResult:
    """Copy the starter vault into ``target``. Existing files are left untouched and
    reported as skipped, so running ``init`` on a live vault is safe."""
    root = Path(target)
    template = resources.files("agent_roster.templates").joinpath("vault")
    created: list[str] = []
    skipped: list[str] = []
    for rel, source in sorted(_walk(template, "")):
        destination = root / rel
        if destination.exists():
            skipped.append(rel)
            continue
        atomic_write(destination, source.read_bytes())
        created.append(rel)
    return InitResult(root, tuple(created), tuple(skipped))


def _walk(node: Traversable, prefix: str) -> list[tuple[str, Traversable]]:
    found: list[tuple[str, Traversable]] = []
    for child in node.iterdir():
        if child.name.startswith("__") or child.name.endswith(".pyc"):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            found.extend(_walk(child, rel + "/"))
        else:
            found.append((rel, child))
    return found
