"""One sync at a time per database (issue 11 item 7).

Two ``roster sync`` runs, or a sync beside ``roster watch``, on one database must both
succeed, one after the other. Each write transaction is already serialised by the database
(``BEGIN IMMEDIATE`` on SQLite, row locks on PostgreSQL), but a sync is many transactions
over one reading of the bookkeeping: two interleaved syncs would each write what the other
has just written, and record its events twice. So a whole sync holds a lock that a second
sync waits for:

* PostgreSQL: a session advisory lock keyed by the schema the connection works in (tests
  and teams keep several stores in one database), held on a connection of its own and
  released when the sync ends, or by the server when the process dies.
* SQLite: an exclusive ``flock`` on the folder that holds the database file. Not on the
  file itself: closing any descriptor of a file drops every POSIX lock the process holds
  on it, SQLite's own included. No lock file is created, and the kernel releases the lock
  when the process dies however it dies.

An in-memory SQLite database lives in one process: it needs no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, text

#: The advisory lock class of a sync (two int4 keys: this and the schema's hash). The
#: migration lock in migrations/env.py uses the one-bigint key space, which never meets it.
_PG_SYNC_CLASS = 0x526F7375  # "Rosu"


@contextlib.contextmanager
def sync_lock(engine: Engine) -> Iterator[None]:
    """Hold the database's sync lock, waiting for another sync to finish first."""
    if engine.dialect.name == "postgresql":
        with _postgres(engine):
            yield
        return
    folder = sqlite_folder(engine)
    if folder is None:
        yield
        return
    with _folder_lock(folder):
        yield


def sqlite_folder(engine: Engine) -> Path | None:
    """The folder of a SQLite database file (``None`` in memory or for another backend)."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).parent


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits; Ctrl-C still interrupts it
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def _postgres(engine: Engine) -> Iterator[None]:
    key = "hashtext(current_schema())"
    with engine.connect() as conn:
        conn.execute(text(f"SELECT pg_advisory_lock({_PG_SYNC_CLASS}, {key})"))
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text(f"SELECT pg_advisory_unlock({_PG_SYNC_CLASS}, {key})"))
            conn.commit()
