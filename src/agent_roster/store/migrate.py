"""Run the store's Alembic migrations from code (no ``alembic.ini`` at runtime).

The scripts live in the package (``agent_roster/store/migrations``), so an installed wheel
can migrate its own database. A whole upgrade runs in one transaction: PostgreSQL has
transactional DDL, and on SQLite the store emits ``BEGIN`` itself (see ``engine.py``), so a
failed migration leaves the previous schema intact on both.

SQLite batch migrations rebuild a table (create a copy, move the rows, drop the old one), and
with ``foreign_keys=ON`` dropping a referenced table fails or deletes rows. So foreign keys
are switched off for the migration (the pragma only works outside a transaction) and
``PRAGMA foreign_key_check`` must come back empty before the transaction commits.

Alembic is imported only when a migration has to run: importing it costs more than a
whole CLI command otherwise, and a database already at :data:`HEAD` needs one query.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from agent_roster.errors import UsageError
from agent_roster.store.engine import writer

if TYPE_CHECKING:
    from alembic.config import Config

SCRIPT_LOCATION = "agent_roster.store:migrations"
#: The newest revision in ``migrations/versions``; a test keeps the two equal.
HEAD = "0006"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic Config pointing at the package's migrations, bound to ``connection``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision this version of the package knows, read from the scripts."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError("the store has no migrations")
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or ``None`` for an empty database."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(versions) > 1:  # pragma: no cover - the store's history has no branches
        raise UsageError(f"the database has several schema heads: {sorted(versions)}")
    return versions[0] if versions else None


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` (default: the newest). Running it again when
    the database is already there changes nothing."""
    if revision in {"head", HEAD} and current_revision(engine) == HEAD:
        return  # the common case, without loading Alembic
    from alembic import command

    _run(engine, lambda config: command.upgrade(config, revision))


def downgrade(engine: Engine, revision: str) -> None:
    """Downgrade the database to ``revision`` (``"base"`` empties it)."""
    from alembic import command

    _run(engine, lambda config: command.downgrade(config, revision))


def _run(engine: Engine, step: Callable[[Config], None]) -> None:
    from alembic.util.exc import CommandError

    with _migration_connection(engine) as conn, conn.begin():
        try:
            step(alembic_config(conn))
        except CommandError as exc:
            raise UsageError(
                f"cannot migrate the database: {exc}",
                hint="a database migrated by a newer agent-roster needs that version or newer",
            ) from exc
        if conn.dialect.name == "sqlite":
            problems = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if problems:
                raise RuntimeError(f"migration broke foreign keys: {problems[:5]}")


@contextmanager
def _migration_connection(engine: Engine) -> Iterator[Connection]:
    with writer(engine).connect() as conn:
        if conn.dialect.name != "sqlite":
            yield conn
            return
        _sqlite_pragma(conn, "foreign_keys=OFF")
        try:
            yield conn
        finally:
            # The pooled connection goes back to others: restore what engine.py set.
            _sqlite_pragma(conn, "foreign_keys=ON")


def _sqlite_pragma(conn: Connection, pragma: str) -> None:
    # On the DBAPI connection, so SQLAlchemy does not begin a transaction first.
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(f"PRAGMA {pragma}")
    finally:
        cursor.close()
