"""``sync_files``: what sync last saw of each vault file (see ``tables.sync_files``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from sqlalchemy import Connection, Select, delete, func, select

from agent_roster.store.common import batched, upsert_writer
from agent_roster.store.tables import sync_files as t

OK = "ok"
FAILED = "failed"
MISSING = "missing"


class FileState(NamedTuple):
    path: str
    entry_kind: str
    entry_id: str
    project: str | None
    mtime_ns: int
    size: int
    content_hash: str
    status: str
    diagnostics: str = "[]"


#: Columns in the order ``upsert_many`` gives its values: a FileState, then ``updated_at``.
_COLUMNS = (*FileState._fields, "updated_at")


def _states() -> Select[Any]:
    """A query for whole FileState rows, columns in field order."""
    return select(*(t.c[name] for name in FileState._fields))


def load_all(conn: Connection) -> dict[str, FileState]:
    """Every known file, keyed by vault-relative path."""
    rows = conn.execute(_states())
    return {row[0]: FileState(*row) for row in rows}


def upsert_many(conn: Connection, states: Iterable[FileState], *, at: float) -> int:
    """Insert or replace file states (one compiled INSERT ... ON CONFLICT, executemany)."""
    write = upsert_writer(conn, t, ["path"], [], _COLUMNS)
    count = 0
    for chunk in batched(states, 2000):
        write([(*state, at) for state in chunk])
        count += len(chunk)
    return count


def delete_many(conn: Connection, paths: Iterable[str]) -> int:
    count = 0
    for chunk in batched(list(paths), 500):
        count += conn.execute(delete(t).where(t.c.path.in_(chunk))).rowcount
    return count


def failing(conn: Connection) -> list[FileState]:
    """Files whose current content does not parse, by path."""
    rows = conn.execute(_states().where(t.c.status == FAILED).order_by(t.c.path))
    return [FileState(*row) for row in rows]


def counts(conn: Connection) -> dict[str, dict[str, int]]:
    """How many files of each kind are in each status: ``{"profile": {"ok": 3}, ...}``."""
    rows = conn.execute(
        select(t.c.entry_kind, t.c.status, func.count()).group_by(t.c.entry_kind, t.c.status)
    )
    found: dict[str, dict[str, int]] = {}
    for kind, status, number in rows:
        found.setdefault(kind, {})[status] = int(number)
    return found


def last_update(conn: Connection) -> float | None:
    value = conn.execute(select(func.max(t.c.updated_at))).scalar()
    return float(value) if value is not None else None
