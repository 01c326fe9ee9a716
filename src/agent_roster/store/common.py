"""Small helpers shared by the store modules: JSON text columns, scoped keys, upserts.

JSON columns are TEXT (seed 001 stores them as TEXT, and TEXT keeps key order and exact
float text on both SQLite and PostgreSQL, which JSONB would not).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import Enum
from itertools import islice
from operator import itemgetter
from typing import Any, TypeVar

import msgspec
from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import psycopg
from sqlalchemy.engine import Dialect
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


Row = Sequence[Any]


def upsert_writer(
    conn: Connection,
    table: Table,
    conflict: Sequence[str],
    keep: Sequence[str],
    columns: Sequence[str],
) -> Callable[[Iterable[Row]], None]:
    """A writer for batches of full rows of ``table``, each a sequence of values in
    ``columns`` order: ``INSERT … ON CONFLICT (conflict) DO UPDATE`` of every column except
    the conflict columns and ``keep`` (for example ``created_at``, which an update must not
    move).

    The statement is compiled once per backend and shape (cached), with positional
    parameters on both drivers, and each batch goes to the driver's ``executemany``
    directly: SQLAlchemy's per-row parameter processing cost about a third of a
    10,000-profile sync, and these column types need no conversion on either driver."""
    sql, pick = _compiled_upsert(
        conn.dialect.name, table, tuple(conflict), tuple(keep), tuple(columns)
    )

    def write(rows: Iterable[Row]) -> None:
        params = [pick(row) for row in rows]
        if params:
            conn.exec_driver_sql(sql, params)

    return write


def bulk_upsert(
    conn: Connection, table: Table, conflict: Sequence[str], keep: Sequence[str]
) -> Callable[[list[dict[str, Any]]], None]:
    """:func:`upsert_writer` for rows given as column mappings (every column present)."""
    names = tuple(c.name for c in table.columns)
    write = upsert_writer(conn, table, conflict, keep, names)
    values = itemgetter(*names)

    def write_dicts(rows: list[dict[str, Any]]) -> None:
        write([values(row) for row in rows])

    return write_dicts


@functools.lru_cache(maxsize=64)
def _compiled_upsert(
    dialect: str,
    table: Table,
    conflict: tuple[str, ...],
    keep: tuple[str, ...],
    columns: tuple[str, ...],
) -> tuple[str, Callable[[Row], tuple[Any, ...]]]:
    """The SQL text of the upsert and a function that puts a row's values in its parameter
    order. Compiling costs milliseconds, which a watcher would pay on every save."""
    frozen = set(conflict) | set(keep)
    updated = [c.name for c in table.columns if c.name not in frozen]
    statement: Insert
    compile_for: Dialect
    if dialect == "postgresql":
        pg = postgresql.insert(table)
        statement = pg.on_conflict_do_update(
            index_elements=list(conflict), set_={n: pg.excluded[n] for n in updated}
        )
        # psycopg takes ``%s`` placeholders as well as named ones; positional parameters
        # spare building a dict per row.
        compile_for = psycopg.dialect(paramstyle="format")  # type: ignore[no-untyped-call]
    elif dialect == "sqlite":
        lite = sqlite.insert(table)
        statement = lite.on_conflict_do_update(
            index_elements=list(conflict), set_={n: lite.excluded[n] for n in updated}
        )
        compile_for = sqlite.dialect()
    else:
        raise UsageError(
            f"database backend {dialect!r} is not supported",
            hint="use a sqlite:/// or postgresql+psycopg:// URL",
        )
    compiled = statement.compile(dialect=compile_for, column_keys=list(columns))
    order = compiled.positiontup
    assert order is not None  # both dialects above are positional
    index = [columns.index(name) for name in order]
    if len(index) == 1:
        only = index[0]
        return compiled.string, lambda row: (row[only],)
    if index == list(range(len(columns))):
        return compiled.string, tuple
    return compiled.string, itemgetter(*index)


def batched(items: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    """Lists of at most ``size`` consecutive items (``itertools.batched`` is 3.12+)."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
