"""``sync``, ``watch`` and ``status``: keeping the database in step with the vault."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UsageError
from agent_roster.resolve.config import load_config
from agent_roster.store import Store, default_db_url
from agent_roster.store import sync_files as file_rows
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus
from agent_roster.sync.engine import SyncEngine, SyncReport
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher
from agent_roster.vault.paths import CONFIG_FILE, VaultLayout


def open_store(vault: str | os.PathLike[str], db: str | None = None) -> Store:
    """Open (and migrate) the store for ``vault``: ``db`` if given, else the default file."""
    root = Path(vault)
    if not root.is_dir():
        raise UsageError(
            f"vault {root} does not exist",
            hint="pass --vault PATH, or create one with 'roster init'",
        )
    return Store.open(db or default_db_url(root))


def sync_vault(
    vault: str | os.PathLike[str], db: str | None = None, *, prune: bool = False
) -> SyncReport:
    """One full sync of ``vault`` into its database."""
    embedded = load_config(vault).config.embedded
    with open_store(vault, db) as store:
        engine = SyncEngine(store, vault, embedded=embedded.name, commands=embedded.commands)
        return engine.sync(prune=prune)


def watch_vault(
    vault: str | os.PathLike[str],
    db: str | None = None,
    *,
    stop: threading.Event | None = None,
    on_report: Callable[[SyncReport], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    bus: EventBus | None = None,
    settle_ms: int = 15,
) -> None:
    """Sync once, then keep syncing each settled batch of changes until ``stop`` is set.

    The first (full) sync runs as soon as the file watch is live, so that nothing saved
    between that sync and the start of the watch can be missed; ``on_ready`` follows it."""
    store = open_store(vault, db)
    try:
        embedded = load_config(vault).config.embedded
        engine = SyncEngine(
            store, vault, bus=bus, embedded=embedded.name, commands=embedded.commands
        )

        def handle(batch: ChangeBatch) -> None:
            if not batch.full_rescan and batch.paths <= {CONFIG_FILE}:
                return  # roster.toml alone: only roster up reads it again
            report = engine.sync(None if batch.full_rescan else batch.paths)
            if on_report is not None:
                on_report(report)

        VaultWatcher(Path(vault), handle, settle_ms=settle_ms, stop=stop, on_ready=on_ready).run()
    finally:
        store.close()


class FailingFile(NamedTuple):
    path: str
    entry_id: str
    project: str | None
    diagnostics: tuple[Diagnostic, ...]


class StatusReport(NamedTuple):
    """What ``roster status`` shows."""

    database: str
    last_sync: float | None
    files: dict[str, dict[str, int]]
    failing: tuple[FailingFile, ...]
    recent_events: tuple[SyncEvent, ...]
    #: Files in the vault's layout that sync does not load, each with the reason (read
    #: from the vault now: the database only holds what was loaded).
    unloaded: tuple[Diagnostic, ...] = ()

    @property
    def problems(self) -> bool:
        return bool(self.failing) or any(d.is_error for d in self.unloaded)

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "last_sync": self.last_sync,
            "files": self.files,
            "failing": [
                {
                    "path": f.path,
                    "id": f.entry_id,
                    "project": f.project,
                    "diagnostics": [d.to_dict() for d in f.diagnostics],
                }
                for f in self.failing
            ],
            "recent_events": [msgspec.to_builtins(e) for e in self.recent_events],
            "unloaded": [d.to_dict() for d in self.unloaded],
        }


def vault_status(
    vault: str | os.PathLike[str], db: str | None = None, *, events: int = 10
) -> StatusReport:
    """Last sync, files by status, and every failing file with its diagnostics."""
    with open_store(vault, db) as store:
        with store.transaction() as conn:
            failing = file_rows.failing(conn)
            counts = file_rows.counts(conn)
            last = file_rows.last_update(conn)
        recent = store.list_sync_events(limit=events)
        decoded = tuple(
            FailingFile(
                f.path,
                f.entry_id,
                f.project,
                msgspec.json.decode(f.diagnostics, type=tuple[Diagnostic, ...]),
            )
            for f in failing
        )
        url = store.engine.url.render_as_string(hide_password=True)
    unloaded: list[Diagnostic] = []
    for _ in VaultLayout(vault).iter_files(unloaded):
        pass  # only the reasons are wanted: a listing, nothing is read
    return StatusReport(url, last, counts, decoded, tuple(recent), tuple(unloaded))
