"""``init``: create a vault skeleton from the starter templates, never overwriting, and
never writing outside the vault (a symlinked ``agent-types/`` that leads elsewhere is refused,
issue 11)."""

from __future__ import annotations

import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import NamedTuple

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import PathOutsideVaultError
from agent_roster.vault.paths import VaultLayout
from agent_roster.vault.writer import write_in_vault


class InitResult(NamedTuple):
    root: Path
    created: tuple[str, ...]
    skipped: tuple[str, ...]
    #: Files not written because a symlink on the way leads outside the vault (one
    #: ``path-outside-vault`` diagnostic per link).
    refused: tuple[Diagnostic, ...] = ()


def init_vault(target: str | os.PathLike[str]) -> InitResult:
    """Copy the starter vault into ``target``. Existing files are left untouched and
    reported as skipped, so running ``init`` on a live vault is safe."""
    root = Path(target)
    root.mkdir(parents=True, exist_ok=True)  # the vault folder itself is the user's choice
    layout = VaultLayout(root)
    template = resources.files("agent_roster.templates").joinpath("vault")
    created: list[str] = []
    skipped: list[str] = []
    refused: dict[str, Diagnostic] = {}
    for rel, source in sorted(_walk(template, "")):
        try:
            written = write_in_vault(layout, root / rel, source.read_bytes())
        except PathOutsideVaultError as exc:
            for diagnostic in exc.diagnostics:
                refused.setdefault(diagnostic.path, diagnostic)
            continue
        (created if written else skipped).append(rel)
    return InitResult(root, tuple(created), tuple(skipped), tuple(refused.values()))


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
