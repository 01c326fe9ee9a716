"""Opening the store read-only, for commands that must not write (issue 13 item 3).

``status``, ``resolve``, ``project list``, ``validate``'s tool catalog and the other
read-only commands read the database when there is one and never create, migrate or change
it. :func:`open_read_only` therefore returns ``None`` where there is no database yet (no
SQLite file; a PostgreSQL schema without the store's tables), and otherwise a
:class:`Store` whose connections cannot write:

* SQLite: the file is opened through a ``file:`` URI with ``immutable=1`` when no other
  process has it open (no ``-wal`` file beside it): then SQLite takes no locks and creates
  no ``-wal``/``-shm`` files, which ``mode=ro`` would leave behind. While another process
  has it open (``roster watch`` is running) it is opened ``mode=ro``, which shares that
  process's WAL, so what it has committed is seen.
* PostgreSQL: every session is ``SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY``.

A database at another schema revision than this package's is not read: a read-only command
cannot migrate it, and its tables may not be what the queries expect.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import Engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.pool import NullPool

from agent_roster.errors import UsageError
from agent_roster.store.engine import BUSY_TIMEOUT_MS
from agent_roster.store.facade import Store
from agent_roster.store.migrate import HEAD


def open_read_only(url: str | URL) -> Store | None:
    """The database at ``url`` opened read-only, or ``None`` when there is none yet."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise UsageError(
            f"{url!s:.200} is not a database URL",
            hint="for example sqlite:///path/to/roster.db or postgresql+psycopg://host/db",
        ) from exc
    shown = parsed.render_as_string(hide_password=True)
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_path(parsed)
        if path is None or not path.is_file():
            return None
        engine = _sqlite_engine(path)
    else:
        try:
            engine = sqlalchemy.create_engine(parsed, pool_pre_ping=True)
        except (ArgumentError, ModuleNotFoundError) as exc:
            raise UsageError(f"cannot open database {shown}: {exc}") from exc
        event.listen(engine, "connect", _postgres_read_only)
    store = Store(engine)
    try:
        revision = store.current_revision()
    except OperationalError as exc:
        engine.dispose()
        raise UsageError(
            f"cannot open database {shown}: {exc.orig}", hint="check --db or $ROSTER_DB"
        ) from exc
    if revision is None:
        engine.dispose()
        return None
    if revision != HEAD:
        engine.dispose()
        raise UsageError(
            f"the database {shown} is at schema revision {revision}, and this roster reads "
            f"{HEAD}; a read-only command does not migrate it",
            hint="run 'roster sync' to migrate it (a newer revision needs a newer roster)",
        )
    return store


def sqlite_path(url: URL) -> Path | None:
    """The file of a SQLite URL (``None`` for an in-memory database)."""
    database = url.database or ""
    if not database or database == ":memory:":
        return None
    if database.startswith("file:"):
        database = database.removeprefix("file:").partition("?")[0]
        if database.startswith("//"):  # file:///abs/path
            database = database[2:]
    return Path(database)


def _sqlite_engine(path: Path) -> Engine:
    absolute = path.absolute()
    # No -wal file: nobody has the database open, and immutable opens it without locks or
    # side files. Otherwise share the writer's WAL (mode=ro creates nothing that is not
    # already there).
    wal = absolute.with_name(absolute.name + "-wal")
    uri = absolute.as_uri() + ("?mode=ro" if wal.exists() else "?immutable=1")

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )

    engine = sqlalchemy.create_engine("sqlite://", creator=connect, poolclass=NullPool)
    event.listen(engine, "connect", _sqlite_read_only)
    event.listen(engine, "begin", lambda conn: conn.exec_driver_sql("BEGIN"))
    return engine


def _sqlite_read_only(dbapi_connection: Any, _record: Any) -> None:
    # As engine.py: SQLAlchemy emits BEGIN itself, so a read sees one snapshot.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA query_only=ON")
    finally:
        cursor.close()


def _postgres_read_only(dbapi_connection: Any, _record: Any) -> None:
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    finally:
        dbapi_connection.autocommit = autocommit
