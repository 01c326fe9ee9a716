"""``sync_events``: the durable log of sync failures, recoveries, deletions and restores.

Issue 3, item 5: every failure and recovery is a structured event, stored here and shown by
``roster status``. A failure keeps every diagnostic of the file, positions included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import msgspec
from sqlalchemy import Connection, func, insert, select

from agent_roster.diagnostics import Diagnostic
from agent_roster.errors import UsageError
from agent_roster.store.common import batched, dumps, loads
from agent_roster.store.tables import sync_events as t


class SyncEventKind(StrEnum):
    """The kinds sync records. The column is free text so later kinds need no migration."""

    FAILURE = "failure"
    RECOVERY = "recovery"
    DELETED = "deleted"
    RESTORED = "restored"
    PRUNED = "pruned"


class SyncEvent(msgspec.Struct, frozen=True, kw_only=True):
    """One event. ``entry_kind`` is ``"profile"`` or ``"mcp-server"``; ``entry_id`` the
    profile id or server name (``""`` when a file failed before its id was known);
    ``at`` defaults to the time of recording; ``id`` is assigned by the database."""

    kind: str
    at: float | None = None
    entry_kind: str = "profile"
    entry_id: str = ""
    project: str | None = None
    path: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()
    message: str = ""
    id: int | None = None


def _to_row(event: SyncEvent, at: float) -> dict[str, Any]:
    if not event.kind:
        raise UsageError("a sync event needs a kind")
    kind = str(event.kind)  # a SyncEventKind is stored as its value
    return {
        "at": at if event.at is None else event.at,
        "kind": kind,
        "entry_kind": event.entry_kind,
        "entry_id": event.entry_id,
        "project": event.project,
        "path": event.path,
        "diagnostics": dumps(event.diagnostics),
        "message": event.message,
    }


def _from_row(row: Mapping[Any, Any]) -> SyncEvent:
    # Result keys are ``quoted_name`` (a str subclass) and msgspec wants plain str keys.
    data = {str(key): value for key, value in row.items()}
    data["diagnostics"] = loads(row["diagnostics"]) or []
    return msgspec.convert(data, SyncEvent)


def record(conn: Connection, event: SyncEvent, *, at: float) -> SyncEvent:
    """Store one event (at ``at`` unless it has a time); returns it as stored."""
    row = _to_row(event, at)
    result = conn.execute(insert(t), row)
    event_id = result.inserted_primary_key[0] if result.inserted_primary_key else None
    return msgspec.structs.replace(event, id=event_id, at=row["at"], kind=row["kind"])


def record_many(conn: Connection, events: Iterable[SyncEvent], *, at: float) -> list[SyncEvent]:
    """Store many events with one ``executemany`` per batch; returns them as stored, ids
    included (the daemon notifies them, and a receiver resumes ``/events`` from an id)."""
    stored: list[SyncEvent] = []
    query = insert(t).returning(t.c.id, sort_by_parameter_order=True)
    for batch in batched(events):
        rows = [_to_row(event, at) for event in batch]
        ids = conn.execute(query, rows).scalars().all()
        stored.extend(
            msgspec.structs.replace(event, id=ident, at=row["at"], kind=row["kind"])
            for event, row, ident in zip(batch, rows, ids, strict=True)
        )
    return stored


def list_(
    conn: Connection,
    limit: int,
    *,
    kinds: Sequence[str] = (),
    path: str | None = None,
) -> list[SyncEvent]:
    """The newest ``limit`` events, newest first; only ``kinds`` / ``path`` when given."""
    if limit < 0:
        raise UsageError(f"limit must not be negative, got {limit}")
    query = select(t).order_by(t.c.at.desc(), t.c.id.desc()).limit(limit)
    if isinstance(kinds, str):  # one kind given bare; iterating it would yield letters
        kinds = (kinds,)
    if kinds:
        query = query.where(t.c.kind.in_([str(k) for k in kinds]))
    if path is not None:
        query = query.where(t.c.path == path)
    return [_from_row(row._mapping) for row in conn.execute(query)]


def after(conn: Connection, event_id: int, limit: int) -> list[SyncEvent]:
    """Events with an id above ``event_id``, oldest first (the SSE stream resumes here)."""
    query = select(t).where(t.c.id > event_id).order_by(t.c.id).limit(limit)
    return [_from_row(row._mapping) for row in conn.execute(query)]


def last_id(conn: Connection) -> int:
    """The newest event's id (0 when there is none)."""
    found = conn.execute(select(func.max(t.c.id))).scalar()
    return int(found or 0)
