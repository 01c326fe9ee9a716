"""Engines for the store: where the default database lives and how SQLite is set up.

Default location. Issue 3 asks for "a SQLite file (WAL) at ``.roster/roster.db`` beside the
vault", so for a vault at ``~/notes/vault`` the database is ``~/notes/.roster/roster.db``:
``<vault parent>/.roster/roster.db``. It is kept out of the vault on purpose: the vault is
edited in Obsidian and often synced between machines (Obsidian Sync, Syncthing, git), and a
live SQLite file plus its ``-wal``/``-shm`` companions must never be copied around
mid-write, nor show up as vault content. Only when the vault is a filesystem root, which has
no "beside", does the database go inside it, at ``<vault>/.roster/roster.db`` (a hidden
folder, which the watcher ignores). Two vaults in the same folder would share the default
file; give one of them ``--db`` or ``$ROSTER_DB``.

SQLite setup (lessons, section 6; STYLE habit 11). Every new connection gets WAL (readers
never block the one writer), ``synchronous=NORMAL`` (durable at checkpoints, and safe from
corruption under WAL), ``foreign_keys=ON`` (SQLite ignores foreign keys otherwise) and a
``busy_timeout`` (a second process waits for the write lock instead of failing at once).
The ``sqlite3`` module's own transaction handling is switched off so that SQLAlchemy
emits ``BEGIN`` itself: otherwise SELECTs run outside the transaction, and a transaction
that reads and then writes is not isolated. Write transactions begin with
``BEGIN IMMEDIATE``, which takes the write lock up front; a deferred transaction that
upgrades from reading to writing gets ``SQLITE_BUSY`` immediately, without waiting.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import URL, make_url

from agent_roster.vault.paths import state_dir

#: Execution option that marks an engine (or connection) as one that writes.
WRITE_OPTION = "roster_write"
#: Milliseconds a SQLite connection waits for another writer before giving up.
BUSY_TIMEOUT_MS = 10_000
DB_FILE = "roster.db"


def default_db_path(vault_root: str | os.PathLike[str]) -> Path:
    """The default SQLite file for the vault at ``vault_root`` (see the module docstring)."""
    return state_dir(vault_root) / DB_FILE


def default_db_url(vault_root: str | os.PathLike[str]) -> str:
    """The default database URL for the vault at ``vault_root``: a SQLite file."""
    return sqlite_url(default_db_path(vault_root))


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The SQLAlchemy URL of the SQLite file at ``path``."""
    return URL.create("sqlite", database=os.fspath(Path(path).absolute())).render_as_string()


def create_engine(url: str | URL, **kwargs: Any) -> Engine:
    """An Engine for ``url`` set up for the store; ``kwargs`` go to SQLAlchemy.

    For a SQLite file, its folder is created if needed. Nothing connects yet."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        # A server may restart under a long-lived watcher; check connections on checkout.
        kwargs.setdefault("pool_pre_ping", True)
        return sqlalchemy.create_engine(parsed, **kwargs)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = sqlalchemy.create_engine(parsed, **kwargs)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def writer(engine: Engine) -> Engine:
    """A copy of ``engine`` (same pool) whose transactions are write transactions."""
    return engine.execution_options(**{WRITE_OPTION: True})


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Take BEGIN away from the sqlite3 module; _sqlite_begin emits it (module docstring).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _wal(cursor: Any) -> None:
    """Put the database in WAL mode, waiting for other connections as a write would.

    Switching a brand-new database to WAL needs an exclusive lock, and SQLite answers
    ``database is locked`` at once, without calling the busy handler, when another process
    is doing the same (two ``roster sync`` on a new database: issue 11 item 7). WAL is
    persistent, so this is only ever contended on a new file: ask what the mode is first,
    and retry the switch until the busy timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            # The primary result code (the low byte): SQLITE_BUSY, or SQLITE_LOCKED.
            code = getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_BUSY) & 0xFF
            if code not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise
            if time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _sqlite_begin(conn: Connection) -> None:
    immediate = conn.get_execution_options().get(WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
