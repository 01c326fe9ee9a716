"""Alembic environment: runs migrations on the connection :mod:`..migrate` hands over.

There is no ``alembic.ini``; :func:`agent_roster.store.migrate.alembic_config` builds the
configuration in code and passes the connection in ``config.attributes``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from agent_roster.errors import UsageError
from agent_roster.store.tables import metadata

#: Any fixed number: the PostgreSQL advisory lock that serialises concurrent migrators.
_PG_MIGRATION_LOCK = 0x526F7374  # "Rost"


def _run(connection: Connection) -> None:
    # render_as_batch: on SQLite every ALTER must go through batch mode (copy and move the
    # table), or alembic raises NotImplementedError (lessons, section 5, item 15). On
    # PostgreSQL batch operations are plain ALTERs.
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Two processes starting at once must not both create the tables.
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_MIGRATION_LOCK})")
        context.run_migrations()


if context.is_offline_mode():
    raise UsageError("offline (SQL script) migrations are not supported")
_connection = context.config.attributes.get("connection")
if not isinstance(_connection, Connection):
    raise UsageError("migrations must be run through agent_roster.store.migrate")
_run(_connection)
