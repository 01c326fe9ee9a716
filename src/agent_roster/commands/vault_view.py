"""The vault as read-only commands see it: read now, never synced (issue 13 item 3).

Seen on main: ``resolve`` (and ``profile list``, through the command context) synced the
vault into its database first, so a read-only command created a database beside the vault
and copied starter knowledge packs into it. A :class:`VaultView` is built from the vault
instead, like ``show`` and ``can`` read it, and holds what resolution needs:

* profiles and MCP servers as their files say now;
* for a file that fails to parse now, the version the database last synced, when there is
  a database (the rule sync follows: a broken edit keeps the last good version); the view
  names those files, so the command can say so;
* projects' default profiles and tasks' profiles, which live only in the database.

The database is opened read-only (``store/readonly.py``) and only if it exists; it must
belong to this vault (``sync/binding.py``). Nothing is written.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import InvalidDocumentError, UsageError
from agent_roster.model.mcp import McpServer
from agent_roster.model.profile import AgentProfile
from agent_roster.parallel import available_workers
from agent_roster.resolve.config import LoadedConfig, load_config
from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import Store, default_db_url
from agent_roster.store.readonly import open_read_only
from agent_roster.sync import binding
from agent_roster.vault.loader import Key, load_vault
from agent_roster.vault.paths import AGENT_TYPES, VaultLayout

#: Below this many profile files the vault is parsed in this process only.
PARALLEL_MIN_PROFILES = 2_000


class VaultView(msgspec.Struct, frozen=True):
    """What read-only commands resolve against."""

    index: ProfileIndex
    config: LoadedConfig
    #: Profile files that fail to parse now, by (project, id): the index holds the version
    #: the database last synced (``stale``) or nothing.
    failing: dict[Key, tuple[Diagnostic, ...]]
    #: Vault paths of the failing files whose last synced version the index holds.
    stale: dict[Key, str]
    layout: VaultLayout

    def notes_for(self, profile: str | None, project: str | None) -> list[str]:
        """Why the profile ``profile`` (in ``project``) resolved from an older version, or
        without its project override."""
        notes = []
        for key in [(None, profile)] + ([(project, profile)] if project else []):
            if key in self.stale:
                notes.append(
                    f"{self.stale[key]} has errors now; resolved from the version last "
                    "synced (roster validate shows them)"
                )
            elif key in self.failing and profile is not None:
                notes.append(
                    f"{self._path(key)} has errors now and was never synced, so it is left "
                    "out (roster validate shows them)"
                )
        return notes

    def unusable(self, profile: str, project: str | None) -> InvalidDocumentError | None:
        """The error for a profile asked for by name whose file (or project override)
        fails now, with no synced version to stand in: resolving without it would give
        another profile than the one asked for."""
        for key in [(None, profile)] + ([(project, profile)] if project else []):
            if key in self.failing and key not in self.stale:
                return InvalidDocumentError(
                    f"{self._path(key)} has errors, and there is no synced version of it",
                    self.failing[key],
                    hint="fix them (roster validate shows them all)",
                )
        return None

    def _path(self, key: Key) -> str:
        layout = self.layout
        return layout.relative(layout.profile_path(key[1], key[0]))


def read_view(vault: str | os.PathLike[str], db: str | None = None) -> VaultView:
    """Read the vault (and its database, read-only, if there is one)."""
    loaded = load_config(vault)
    embedded = loaded.config.embedded
    layout = VaultLayout(vault)
    snapshot = load_vault(
        vault,
        embedded=embedded.name,
        commands=embedded.commands,
        workers=available_workers() if _many(layout) else 0,
    )
    profiles: dict[Key, AgentProfile] = {}
    failing: dict[Key, tuple[Diagnostic, ...]] = {}
    for key, parsed in snapshot.profiles.items():
        if parsed.ok and parsed.profile is not None:
            profiles[key] = parsed.profile
        else:
            failing[key] = parsed.diagnostics
    servers: dict[Key, McpServer] = {
        key: parsed.server
        for key, parsed in snapshot.servers.items()
        if parsed.ok and parsed.server is not None
    }
    broken_servers = [key for key, parsed in snapshot.servers.items() if not parsed.ok]
    stale: dict[Key, str] = {}
    defaults: dict[str, str | None] = {}
    tasks: dict[str, tuple[str, str | None]] = {}
    store = open_existing(vault, db)
    if store is not None:
        with store:
            binding.check(store, layout)
            for key in failing:
                row = store.get_profile(key[1], key[0])
                if row is not None:
                    profiles[key] = row
                    stale[key] = layout.relative(layout.profile_path(key[1], key[0]))
            for project, name in broken_servers:
                server = store.get_mcp_server(name, project)
                if server is not None:
                    servers[(project, name)] = server
            defaults = {p.id: p.default_profile_id for p in store.list_projects()}
            tasks = {t.id: (t.project_id, t.profile_id) for t in store.list_tasks()}
    index = ProfileIndex(
        loaded.config,
        profiles.values(),
        servers.values(),
        project_defaults=defaults,
        task_profiles=tasks,
    )
    return VaultView(index, loaded, failing, stale, layout)


def open_existing(vault: str | os.PathLike[str], db: str | None = None) -> Store | None:
    """The vault's database opened read-only, or ``None`` when there is none yet."""
    root = Path(vault)
    if not root.is_dir():
        raise UsageError(
            f"vault {root} does not exist",
            hint="pass --vault PATH, or create one with 'roster init'",
        )
    return open_read_only(db or default_db_url(root))


def _many(layout: VaultLayout) -> bool:
    try:
        with os.scandir(layout.root / AGENT_TYPES) as entries:
            return sum(1 for _ in entries) >= PARALLEL_MIN_PROFILES
    except OSError:
        return False
