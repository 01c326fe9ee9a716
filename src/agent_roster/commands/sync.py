"""``sync``, ``watch`` and ``status``: keeping the database in step with the vault.

The registry commands are :func:`sync_vault` and :func:`get_status`; ``watch`` is the
CLI's long-running loop (the daemon, ``roster up``, is the other one).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import msgspec
<<<<<<< main
from sqlalchemy.engine import make_url
=======
from msgspec import Meta
>>>>>>> layer

from agent_roster.commands.context import RosterContext
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


<<<<<<< main
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
=======
class SyncVaultParams(msgspec.Struct, frozen=True, kw_only=True):
    prune: Annotated[
        bool,
        Meta(description="delete rows whose files are gone (clears task and project references)"),
    ] = False


class SyncResult(msgspec.Struct, frozen=True, kw_only=True):
    """What one sync did: files scanned, rows written, files failing (their last good row
    stays), events recorded, and every file in the layout it did not load."""

    scanned: int
    unchanged: int
    written: int
    failed: int
    deleted: int
    restored: int
    recovered: int
    pruned: int
    starter_files: list[str]
    events: list[SyncEvent]
    seconds: float
    failing: int
    diagnostics: list[Diagnostic]

    @property
    def problems(self) -> bool:
        """A file fails, or one is not loaded for an error (refused, unreadable)."""
        return bool(self.failing) or any(d.is_error for d in self.diagnostics)

    @classmethod
    def of(cls, report: SyncReport) -> SyncResult:
        return cls(
            scanned=report.scanned,
            unchanged=report.unchanged,
            written=report.written,
            failed=report.failed,
            deleted=report.deleted,
            restored=report.restored,
            recovered=report.recovered,
            pruned=report.pruned,
            starter_files=list(report.starter_files),
            events=list(report.events),
            seconds=report.seconds,
            failing=report.failing,
            diagnostics=list(report.diagnostics),
        )


def sync_vault(ctx: RosterContext, params: SyncVaultParams) -> SyncResult:
    """Sync the vault into the database now (only changed files are parsed)."""
    if ctx.live is not None:
        if params.prune:
            raise UsageError(
                "pruning deletes rows the running daemon serves; it runs only without it",
                hint="stop the daemon, prune, and start it again",
            )
        return SyncResult.of(ctx.live.sync())
    embedded = ctx.config().embedded
    engine = SyncEngine(ctx.store(), ctx.vault, embedded=embedded.name, commands=embedded.commands)
    return SyncResult.of(engine.sync(prune=params.prune))
>>>>>>> layer


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


<<<<<<< main
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
=======
class FailingFile(msgspec.Struct, frozen=True, kw_only=True):
>>>>>>> layer
    path: str
    id: Annotated[str, Meta(description="the profile id or server name")]
    project: str | None
    diagnostics: list[Diagnostic]


class StatusReport(msgspec.Struct, frozen=True, kw_only=True):
    """The last sync, files by kind and status, every failing file with its diagnostics
    (its previous version stays active), every file in the vault's layout not loaded (read
    from the vault now: the database holds only what was loaded), and recent events."""

    database: str
    last_sync: float | None
    files: dict[str, dict[str, int]]
<<<<<<< main
    failing: tuple[FailingFile, ...]
    recent_events: tuple[SyncEvent, ...]
    #: Files in the vault's layout that sync does not load, each with the reason (read
    #: from the vault now: the database only holds what was loaded).
    unloaded: tuple[Diagnostic, ...] = ()
    #: roster.toml's problems, read from the vault now.
    config: tuple[Diagnostic, ...] = ()
    #: Whether the database exists yet (a read-only status never creates it).
    exists: bool = True
=======
    failing: list[FailingFile]
    recent_events: list[SyncEvent]
    unloaded: list[Diagnostic] = []
>>>>>>> layer

    @property
    def problems(self) -> bool:
        return bool(self.failing) or any(d.is_error for d in (*self.unloaded, *self.config))

<<<<<<< main
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
=======

class GetStatusParams(msgspec.Struct, frozen=True, kw_only=True):
    events: Annotated[int, Meta(ge=0, description="how many recent events to include")] = 10


def get_status(ctx: RosterContext, params: GetStatusParams) -> StatusReport:
    """Show the last sync, failing files with their diagnostics and recent events."""
    return _status(ctx.store(), ctx.vault, params.events)
>>>>>>> layer


def vault_status(
    vault: str | os.PathLike[str], db: str | None = None, *, events: int = 10
) -> StatusReport:
<<<<<<< main
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
=======
    """Last sync, files by status, and every failing file with its diagnostics."""
    with open_store(vault, db) as store:
        return _status(store, vault, events)


def _status(store: Store, vault: str | os.PathLike[str], events: int) -> StatusReport:
    with store.transaction() as conn:
        failing = file_rows.failing(conn)
        counts = file_rows.counts(conn)
        last = file_rows.last_update(conn)
    recent = store.list_sync_events(limit=events)
    decoded = [
        FailingFile(
            path=f.path,
            id=f.entry_id,
            project=f.project,
            diagnostics=msgspec.json.decode(f.diagnostics, type=list[Diagnostic]),
        )
        for f in failing
    ]
    url = store.engine.url.render_as_string(hide_password=True)
    unloaded: list[Diagnostic] = []
    for _ in VaultLayout(vault).iter_files(unloaded):
        pass  # only the reasons are wanted: a listing, nothing is read
    return StatusReport(
        database=url,
        last_sync=last,
        files=counts,
        failing=decoded,
        recent_events=list(recent),
        unloaded=unloaded,
>>>>>>> layer
    )
