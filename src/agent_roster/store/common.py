"""Small helpers shared by the store modules: JSON text columns, scoped keys, upserts.

JSON columns are TEXT (seed 001 stores them as TEXT, and TEXT keeps key order and exact
float text on both SQLite and PostgreSQL, which JSONB would not).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import Enum
from itertools import islice
from typing import Any, TypeVar

import msgspec
from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import ColumnElement

from agent_roster.errors import UsageError
from agent_roster.vault.paths import check_segment

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()

#: Rows per ``executemany`` call: big enough to amortise round trips, small enough that
#: a 10,000-profile sync never holds every encoded row in memory at once.
CHUNK = 1000


class Unset(Enum):
    """Type of :data:`UNSET`: "argument not given", as opposed to ``None`` ("clear it")."""

    UNSET = "unset"


UNSET = Unset.UNSET


def dumps(value: Any) -> str:
    """Encode ``value`` (builtins, msgspec Structs, enums, tuples) as JSON text."""
    return _encoder.encode(value).decode("utf-8")


def loads(text: str | None) -> Any:
    """Decode JSON text from a column; ``NULL`` and ``''`` read as ``None``."""
    if not text:
        return None
    return _decoder.decode(text)


def now() -> float:
    """Wall-clock seconds since the epoch, as seed 001 stores ``created_at``/``updated_at``."""
    return time.time()


def scoped_key(name: str, project: str | None, what: str = "id") -> str:
    """The primary key of a scoped row: ``name`` for system scope, ``project/name`` for a
    project. Both parts must be safe path segments, which can never contain ``/``, so two
    different (project, name) pairs can never share a key."""
    check_segment(name, what)
    if project is None:
        return name
    return f"{check_segment(project, 'project id')}/{name}"


def ordered(conn: Connection, column: ColumnElement[str]) -> ColumnElement[str]:
    """``column`` for ORDER BY in code point order on every backend. SQLite compares bytes
    (BINARY); PostgreSQL would use the database's locale, so lists would come out in a
    different order on each backend and each machine."""
    return column.collate("C") if conn.dialect.name == "postgresql" else column


def bulk_upsert(
    conn: Connection, table: Table, conflict: Sequence[str], keep: Sequence[str]
) -> Callable[[list[dict[str, Any]]], None]:
    """A writer for batches of full rows of ``table``: ``INSERT … ON CONFLICT (conflict) DO
    UPDATE`` of every column except the conflict columns and ``keep`` (for example
    ``created_at``, which an update must not move).

    The statement is compiled once and each batch goes to the driver's ``executemany``
    directly: SQLAlchemy's per-row parameter processing cost about a third of a
    10,000-profile sync, and these column types need no conversion on either driver."""
    frozen = set(conflict) | set(keep)
    names = [c.name for c in table.columns if c.name not in frozen]
    dialect = conn.dialect.name
    statement: Insert
    if dialect == "postgresql":
        pg = postgresql.insert(table)
        statement = pg.on_conflict_do_update(
            index_elements=list(conflict), set_={n: pg.excluded[n] for n in names}
        )
    elif dialect == "sqlite":
        lite = sqlite.insert(table)
        statement = lite.on_conflict_do_update(
            index_elements=list(conflict), set_={n: lite.excluded[n] for n in names}
        )
    else:
        raise UsageError(
            f"database backend {dialect!r} is not supported",
            hint="use a sqlite:/// or postgresql+psycopg:// URL",
        )
    compiled = statement.compile(dialect=conn.dialect, column_keys=[c.name for c in table.columns])
    order = compiled.positiontup

    def write(rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        if order is None:  # named parameters (psycopg): the dicts go as they are
            conn.exec_driver_sql(compiled.string, rows)
        else:
            conn.exec_driver_sql(compiled.string, [tuple(row[n] for n in order) for row in rows])

    return write


def batched(items: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    """Lists of at most ``size`` consecutive items (``itertools.batched`` is 3.12+)."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
