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
from msgspec import Meta
from sqlalchemy.engine import make_url

from agent_roster.commands.context import RosterContext
from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UsageError, VaultMismatchError
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


class SyncVaultParams(msgspec.Struct, frozen=True, kw_only=True):
    prune: Annotated[
        bool,
        Meta(description="delete rows whose files are gone (clears task and project references)"),
    ] = False
    rebind: Annotated[
        bool,
        Meta(
            description="make the database belong to this vault though it belongs to another "
            "(that vault's rows are then marked deleted)"
        ),
    ] = False


class SyncResult(msgspec.Struct, frozen=True, kw_only=True):
    """What one sync did: files scanned, rows written, files failing (their last good row
    stays), events recorded, every file in the layout it did not load, roster.toml's
    problems (``config``) and what changed about the vault the database belongs to
    (``vault_note``, after a rebind or a move)."""

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
    config: Annotated[
        list[Diagnostic],
        Meta(description="roster.toml's problems (with an error, built-in defaults stand in)"),
    ] = []
    vault_note: Annotated[
        str, Meta(description="what changed about the vault the database belongs to, or empty")
    ] = ""

    @property
    def problems(self) -> bool:
        """A file fails, one is not loaded for an error (refused, unreadable), or
        roster.toml has errors."""
        return bool(self.failing) or any(d.is_error for d in (*self.diagnostics, *self.config))

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
            config=list(report.config),
            vault_note=report.vault_note,
        )


def sync_vault(ctx: RosterContext, params: SyncVaultParams) -> SyncResult:
    """Sync the vault into the database now (only changed files are parsed).

    A database belongs to one vault: syncing another vault into it is refused
    (vault-mismatch) unless ``rebind``."""
    if ctx.live is not None:
        refused = [
            what
            for asked, what in (
                (params.prune, "pruning deletes rows the running daemon serves"),
                (params.rebind, "rebinding moves the running daemon's database to this vault"),
            )
            if asked
        ]
        if refused:
            raise UsageError(
                f"{refused[0]}; it runs only without it",
                hint="stop the daemon, sync, and start it again",
            )
        return SyncResult.of(ctx.live.sync())
    loaded = load_config(ctx.vault)
    embedded = loaded.config.embedded
    engine = SyncEngine(
        ctx.store(),
        ctx.vault,
        embedded=embedded.name,
        commands=embedded.commands,
        rebind=params.rebind,
    )
    report = engine.sync(prune=params.prune)
    # roster.toml's problems come along (issue 11 item 5).
    return SyncResult.of(report._replace(config=loaded.diagnostics))


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
    between that sync and the start of the watch can be missed; ``on_ready`` follows it.

    A database that belongs to another vault ends the watch with sync's own
    VaultMismatchError (issue 13): no retry can fix it, so it is not one more failed sync
    to report and try again."""
    store = open_store(vault, db)
    stop = stop or threading.Event()
    refused: list[VaultMismatchError] = []
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
            try:
                report = engine.sync(None if batch.full_rescan else batch.paths)
            except VaultMismatchError as error:
                refused.append(error)
                stop.set()
                return
            if on_report is not None:
                on_report(report)

        def ready() -> None:
            if not refused and on_ready is not None:
                on_ready()

        VaultWatcher(Path(vault), handle, settle_ms=settle_ms, stop=stop, on_ready=ready).run()
    finally:
        store.close()
    if refused:
        raise refused[0]


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


class FailingFile(msgspec.Struct, frozen=True, kw_only=True):
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
    failing: list[FailingFile]
    recent_events: list[SyncEvent]
    unloaded: Annotated[
        list[Diagnostic],
        Meta(description="files in the vault's layout sync does not load, with the reason"),
    ] = []
    config: Annotated[
        list[Diagnostic], Meta(description="roster.toml's problems, read from the vault now")
    ] = []
    exists: Annotated[
        bool, Meta(description="whether the database exists yet (status never creates it)")
    ] = True

    @property
    def problems(self) -> bool:
        return bool(self.failing) or any(d.is_error for d in (*self.unloaded, *self.config))


class GetStatusParams(msgspec.Struct, frozen=True, kw_only=True):
    events: Annotated[int, Meta(ge=0, description="how many recent events to include")] = 10


def get_status(ctx: RosterContext, params: GetStatusParams) -> StatusReport:
    """Show the last sync, failing files with their diagnostics and recent events."""
    store = ctx.read_store()
    try:
        return _status(store, ctx.vault, ctx.db, params.events)
    finally:
        if store is not None and store is not ctx._store:
            store.close()


def vault_status(
    vault: str | os.PathLike[str], db: str | None = None, *, events: int = 10
) -> StatusReport:
    """Last sync, files by status, and every failing file with its diagnostics. Read-only
    (issue 13 item 3): without a database yet it says so, and creates none."""
    from agent_roster.commands.vault_view import open_existing

    store = open_existing(vault, db)
    if store is None:
        return _status(None, vault, db, events)
    with store:
        return _status(store, vault, db, events)


def _status(
    store: Store | None, vault: str | os.PathLike[str], db: str | None, events: int
) -> StatusReport:
    from agent_roster.sync import binding

    # The URL as given (a read-only store is opened through another one).
    url = make_url(db or default_db_url(vault)).render_as_string(hide_password=True)
    last: float | None = None
    counts: dict[str, dict[str, int]] = {}
    decoded: list[FailingFile] = []
    recent: list[SyncEvent] = []
    if store is not None:
        binding.check(store, VaultLayout(vault))
        with store.engine.connect() as conn:
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
        config=list(load_config(vault).diagnostics),
        exists=store is not None,
    )
