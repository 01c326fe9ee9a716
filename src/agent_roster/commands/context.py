"""The one context every command runs against.

A surface resolves it once: the CLI from ``--vault``/``--db`` and the environment, the daemon
(``roster up``) at start. Commands take it as their first argument, so no command reads the
environment or opens a database on its own, and the CLI and the daemon cannot disagree about
which vault, database or embedded server name they mean (code review §2.7).

In the daemon the context is *live*: the watcher keeps the index current, so a command reads
it instead of syncing first, and a write can wait until the watcher has applied it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    from agent_roster.commands.vault_view import VaultView
    from agent_roster.resolve.attach import Attachment
    from agent_roster.resolve.config import RosterConfig
    from agent_roster.resolve.index import ProfileIndex
    from agent_roster.store import Store
    from agent_roster.sync.engine import SyncReport
    from agent_roster.vault.paths import VaultLayout


class Caller(msgspec.Struct, frozen=True, kw_only=True):
    """Who is calling, when a per-launch credential says so: the task and profile a launch
    spec was built for. ``None`` on a context means a local user (the CLI, or a request with
    the daemon's own token)."""

    profile: str
    task: str | None = None
    project: str | None = None


class LiveState(Protocol):
    """What the daemon adds to a context: the watcher-maintained index and a way to wait
    until a written file has been synced."""

    def index(self) -> ProfileIndex: ...

    def config(self) -> RosterConfig: ...

    def wait_synced(self, path: Path, content_hash: str, timeout: float) -> bool:
        """Block until the watcher has synced ``path`` with ``content_hash`` (``True``), or
        ``timeout`` seconds pass (``False``)."""
        ...

    def sync(self) -> SyncReport:
        """Sync the whole vault now, with the watcher's own engine."""
        ...

    def daemon(self) -> Attachment:
        """How launches reach this daemon's embedded MCP server."""
        ...


class RosterContext:
    """The vault, its database and its roster.toml, opened lazily and at most once."""

    def __init__(
        self,
        vault: str | os.PathLike[str],
        db: str | None = None,
        *,
        caller: Caller | None = None,
        live: LiveState | None = None,
    ) -> None:
        self.vault = Path(vault)
        self.db = db
        self.caller = caller
        self.live = live
        self._store: Store | None = None
        self._layout: VaultLayout | None = None
        self._config: RosterConfig | None = None

    def with_caller(self, caller: Caller | None) -> RosterContext:
        """The same context seen by another caller (shares the store and the live state)."""
        other = RosterContext(self.vault, self.db, caller=caller, live=self.live)
        other._store, other._layout, other._config = self._store, self._layout, self._config
        return other

    @property
    def layout(self) -> VaultLayout:
        if self._layout is None:
            from agent_roster.vault.paths import VaultLayout

            self._layout = VaultLayout(self.vault)
        return self._layout

    def config(self) -> RosterConfig:
        """roster.toml as it applies now (the daemon's last good one when live)."""
        if self.live is not None:
            return self.live.config()
        if self._config is None:
            from agent_roster.resolve.config import load_config

            self._config = load_config(self.vault).config
        return self._config

    def store(self) -> Store:
        """The vault's database, opened (and migrated) on first use."""
        if self._store is None:
            from agent_roster.commands.sync import open_store

            self._store = open_store(self.vault, self.db)
        return self._store

    def read_store(self) -> Store | None:
        """The vault's database opened read-only (``None`` when there is none yet), for
        commands that only read: nothing is created, migrated or changed. In the daemon,
        its one store."""
        if self._store is not None:
            return self._store
        from agent_roster.commands.vault_view import open_existing

        return open_existing(self.vault, self.db)

    def view(self) -> VaultView:
        """The vault read now, with the database's last good versions of files that fail
        and its projects and tasks (read-only: ``commands/vault_view.py``)."""
        from agent_roster.commands.vault_view import read_view

        return read_view(self.vault, self.db)

    def index(self) -> ProfileIndex:
        """The resolution index: the daemon's live one, else read from the vault now.
        Never syncs: read-only commands write nothing (issue 13 item 3)."""
        if self.live is not None:
            return self.live.index()
        return self.view().index

    def daemon(self) -> Attachment | None:
        """The running ``roster up`` that launch specs attach (``None``: none runs for this
        vault): the daemon itself when live, else whoever holds the vault's lock file."""
        if self.live is not None:
            return self.live.daemon()
        from agent_roster.commands.resolve import running_daemon

        return running_daemon(self.vault)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> RosterContext:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
