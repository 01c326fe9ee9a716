"""``sync``, ``watch`` and ``status``: keeping the database in step with the vault."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
from sqlalchemy.engine import make_url

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UsageError
from agent_roster.resolve.config import load_config
from agent_roster.resolve.live_config import LiveConfig
from agent_roster.store import Store, default_db_url
from agent_roster.store import sync_files as file_rows
from agent_roster.store.events import SyncEvent
from agent_roster.sync.bus import EventBus
from agent_roster.sync.engine import SyncEngine, SyncReport
from agent_roster.sync.watcher import ChangeBatch, VaultWatcher
from agent_roster.vault.paths import CONFIG_FILE, VaultLayout

log = logging.getLogger(__name__)


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
    vault: str | os.PathLike[str],
    db: str | None = None,
    *,
    prune: bool = False,
    rebind: bool = False,
) -> SyncReport:
    """One full sync of ``vault`` into its database; the report carries roster.toml's
    problems too (``config``, issue 11 item 5)."""
    loaded = load_config(vault)
    embedded = loaded.config.embedded
    with open_store(vault, db) as store:
        engine = SyncEngine(
            store, vault, embedded=embedded.name, commands=embedded.commands, rebind=rebind
        )
        report = engine.sync(prune=prune)
    return report._replace(config=loaded.diagnostics)


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
        config = LiveConfig(vault)
        _log_config(config.diagnostics)
        embedded = config.current.embedded
        engine = SyncEngine(
            store, vault, bus=bus, embedded=embedded.name, commands=embedded.commands
        )

        def handle(batch: ChangeBatch) -> None:
            if CONFIG_FILE in batch.paths or batch.full_rescan:
                _reload_config(config, engine)
            if not batch.full_rescan and batch.paths <= {CONFIG_FILE}:
                return  # roster.toml alone: read again above, nothing to sync
            report = engine.sync(None if batch.full_rescan else batch.paths)
            if on_report is not None:
                on_report(report)

        VaultWatcher(Path(vault), handle, settle_ms=settle_ms, stop=stop, on_ready=on_ready).run()
    finally:
        store.close()


def _reload_config(config: LiveConfig, engine: SyncEngine) -> None:
    """roster.toml changed under ``roster watch``: a clean file is put in force, a broken
    one is reported once and the configuration in force stays (as for profiles)."""
    change = config.reload()
    if change.failed:
        _log_config(change.loaded.diagnostics)
        log.warning("%s has errors; the configuration in force stays as it was", CONFIG_FILE)
    elif change.recovered:
        log.info("%s reads cleanly again", CONFIG_FILE)
    if change.applied:
        embedded = config.current.embedded
        engine.embedded, engine.commands = embedded.name, tuple(embedded.commands)
        log.info("%s changed; the new configuration is in force", CONFIG_FILE)


def _log_config(diagnostics: tuple[Diagnostic, ...]) -> None:
    for d in diagnostics:
        log.log(
            logging.ERROR if d.is_error else logging.WARNING,
            "%s:%d:%d: [%s] %s%s",
            d.path,
            d.line,
            d.column,
            d.code,
            d.message,
            f" (hint: {d.hint})" if d.hint else "",
        )


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
    #: roster.toml's problems, read from the vault now.
    config: tuple[Diagnostic, ...] = ()
    #: Whether the database exists yet (a read-only status never creates it).
    exists: bool = True

    @property
    def problems(self) -> bool:
        return bool(self.failing) or any(d.is_error for d in (*self.unloaded, *self.config))

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "exists": self.exists,
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
            "config": [d.to_dict() for d in self.config],
        }


def vault_status(
    vault: str | os.PathLike[str], db: str | None = None, *, events: int = 10
) -> StatusReport:
    """Last sync, files by status, and every failing file with its diagnostics. Read-only
    (issue 13 item 3): without a database yet it says so, and creates none."""
    from agent_roster.commands.vault_view import open_existing
    from agent_roster.sync import binding

    url = make_url(db or default_db_url(vault)).render_as_string(hide_password=True)
    last: float | None = None
    counts: dict[str, dict[str, int]] = {}
    decoded: tuple[FailingFile, ...] = ()
    recent: list[SyncEvent] = []
    store = open_existing(vault, db)
    if store is not None:
        with store:
            binding.check(store, VaultLayout(vault))
            with store.engine.connect() as conn:
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
    unloaded: list[Diagnostic] = []
    for _ in VaultLayout(vault).iter_files(unloaded):
        pass  # only the reasons are wanted: a listing, nothing is read
    config = load_config(vault).diagnostics
    return StatusReport(
        url, last, counts, decoded, tuple(recent), tuple(unloaded), config, store is not None
    )
