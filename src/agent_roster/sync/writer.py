"""Writing what a sync found: batches of outcomes, files gone from the vault, and pruning.

Each batch is one transaction holding the profile rows, the server rows, the per-file
bookkeeping and the events together, so a crash leaves every row either wholly old or
wholly new and the next sync finishes the job. Outcomes are consumed as they come, so the
parse of the next batch (possibly in worker processes) overlaps the write of this one and
no more than a batch is held in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import NamedTuple

from sqlalchemy import Connection, select

from agent_roster.resolve.index import ProfileIndex
from agent_roster.store import events as event_rows
from agent_roster.store import mcp as server_rows
from agent_roster.store import profiles as profile_rows
from agent_roster.store import sync_files
from agent_roster.store.events import SyncEvent, SyncEventKind
from agent_roster.store.facade import Store
from agent_roster.store.sync_files import MISSING, FileState
from agent_roster.store.tables import agent_profiles
from agent_roster.sync.outcomes import PROFILE, SERVER, Outcome, make_event


class Written(NamedTuple):
    written: int
    failed: int
    restored: int
    recovered: int
    events: list[SyncEvent]
    #: System profiles that appeared for the first time (their starter packs get copied).
    first_profiles: list[str]


def write_outcomes(
    store: Store,
    outcomes: Iterable[Outcome],
    states: dict[str, FileState],
    *,
    at: float,
    batch_size: int,
    index: ProfileIndex | None,
) -> Written:
    """Write ``outcomes`` in transactions of ``batch_size``; ``states`` follows each commit."""
    recorded: list[SyncEvent] = []
    written = failed = restored = recovered = 0
    first_profiles: list[str] = []
    for batch in _batches(outcomes, batch_size):
        rows = [o.row for o in batch if o.row is not None]
        servers = [o.server for o in batch if o.server is not None]
        batch_events = [o.event for o in batch if o.event is not None]
        with store.transaction() as conn:
            # A profile whose first versions were all broken appears now, when it first
            # parses (issue 3, item 8): it is new if it has no row yet.
            unsure = [
                o.state.entry_id
                for o in batch
                if o.row is not None and o.first_time is None and o.state.project is None
            ]
            had_row = _system_profile_rows(conn, unsure) if unsure else set()
            if servers:
                server_rows.upsert_many(conn, servers, at=at, synced_at=at)
            if rows:
                profile_rows.upsert_rows(conn, rows)
            sync_files.upsert_many(conn, [o.state for o in batch], at=at)
            if batch_events:
                batch_events = event_rows.record_many(conn, batch_events, at=at)
        if index is not None and (rows or servers):
            index.apply(
                profiles=[o.profile for o in batch if o.profile is not None],
                servers=[s.server for s in servers],
            )
        for outcome in batch:
            states[outcome.state.path] = outcome.state
            new = outcome.first_time or (
                outcome.first_time is None and outcome.state.entry_id not in had_row
            )
            if outcome.row is not None and new and outcome.state.project is None:
                first_profiles.append(outcome.state.entry_id)
        written += len(rows) + len(servers)
        failed += sum(1 for e in batch_events if e.kind == SyncEventKind.FAILURE)
        restored += sum(1 for e in batch_events if e.kind == SyncEventKind.RESTORED)
        recovered += sum(1 for e in batch_events if e.kind == SyncEventKind.RECOVERY)
        recorded.extend(batch_events)
    return Written(written, failed, restored, recovered, recorded, first_profiles)


def _batches(outcomes: Iterable[Outcome], size: int) -> Iterator[list[Outcome]]:
    it = iter(outcomes)
    while batch := list(islice(it, size)):
        yield batch


def mark_gone(
    store: Store,
    gone: list[FileState],
    states: dict[str, FileState],
    *,
    at: float,
    index: ProfileIndex | None,
) -> list[SyncEvent]:
    """Mark the rows of deleted files missing (they stop resolving; rows stay)."""
    events = [
        make_event(
            SyncEventKind.DELETED,
            s,
            "the file was deleted; its row stays but no longer resolves (sync --prune deletes it)",
        )
        for s in gone
    ]
    missing = [s._replace(status=MISSING) for s in gone]
    with store.transaction() as conn:
        profile_rows.set_present(
            conn, [(s.entry_id, s.project) for s in gone if s.entry_kind == PROFILE], False
        )
        server_rows.set_present(
            conn, [(s.entry_id, s.project) for s in gone if s.entry_kind == SERVER], False
        )
        sync_files.upsert_many(conn, missing, at=at)
        events = event_rows.record_many(conn, events, at=at)
    for state in missing:
        states[state.path] = state
    if index is not None:
        # A missing file stops resolving (issue 3, item 3).
        index.apply(
            removed_profiles=[(s.entry_id, s.project) for s in gone if s.entry_kind == PROFILE],
            removed_servers=[(s.entry_id, s.project) for s in gone if s.entry_kind == SERVER],
        )
    return events


def prune(store: Store, states: dict[str, FileState], *, at: float) -> list[SyncEvent]:
    """Delete the rows and bookkeeping of every missing file (``sync --prune``)."""
    missing = [s for s in states.values() if s.status == MISSING]
    with store.transaction() as conn:
        removed_profiles = profile_rows.prune_missing(conn)
        removed_servers = server_rows.prune_missing(conn)
        sync_files.delete_many(conn, [s.path for s in missing])
        events = [
            SyncEvent(
                kind=SyncEventKind.PRUNED.value,
                entry_kind=kind,
                entry_id=ident,
                project=project,
                message="deleted from the database by --prune",
                at=at,
            )
            for kind, keys in ((PROFILE, removed_profiles), (SERVER, removed_servers))
            for ident, project in keys
        ]
        events = event_rows.record_many(conn, events, at=at)
    for state in missing:
        del states[state.path]
    return events


def _system_profile_rows(conn: Connection, ids: list[str]) -> set[str]:
    """Which of the system profile ``ids`` have a row (present or missing)."""
    key = agent_profiles.c.key  # a system profile's key is its id
    return {row[0] for row in conn.execute(select(key).where(key.in_(ids)))}
