"""The database schema: one ``MetaData`` and its tables (SQLAlchemy Core, no ORM).

This module declares what the migrations build; a test compares the two on SQLite and
PostgreSQL, so a change here without a migration fails CI.

Keys. ``agent_profiles`` and ``mcp_servers`` hold two scopes: system rows and project rows
(a project override of ``coding`` in ``webshop`` must coexist with the system ``coding``).
Both tables therefore use a surrogate text primary key ``key``: the id itself for system
rows and ``<project>/<id>`` for project rows. Ids and project ids are single safe path
segments, which never contain ``/``, so the key is unambiguous; a CHECK constraint keeps it
in step with ``id``/``project``. Because a system row's key *is* its id, the foreign keys of
seed 001 (``tasks.profile_id``, ``projects.default_profile_id`` → ``agent_profiles.id``)
point at ``agent_profiles.key`` and can only ever name a system profile, which is what the
resolution cascade looks up first. ``name`` is deliberately not unique (upstream's
``UNIQUE(name)`` broke seeding; lessons, section 5).

Timestamps and sampling values use ``Double`` (``DOUBLE PRECISION`` on PostgreSQL, where
plain ``REAL`` would be 4-byte and round the seconds of ``created_at``).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    false,
    text,
    true,
)

#: Constraint names are fixed by convention so SQLite batch migrations can find and drop
#: them (SQLite itself does not name constraints).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _text(name: str, default: str = "", *, nullable: bool = False) -> Column[str]:
    """A TEXT column; NOT NULL with a literal server default unless ``nullable``."""
    if nullable:
        return Column(name, Text, nullable=True)
    return Column(name, Text, nullable=False, server_default=text(repr(default)))


# SQL keeps a scoped key consistent with its parts; `||` is string concatenation on both
# backends.
_KEY_RULE = (
    "(project IS NULL AND key = {n}) OR (project IS NOT NULL AND key = project || '/' || {n})"
)

projects = Table(
    "projects",
    metadata,
    Column("id", Text, primary_key=True),
    _text("name"),
    Column("default_profile_id", Text, ForeignKey("agent_profiles.key"), nullable=True),
    Index(None, "default_profile_id"),
)

tasks = Table(
    "tasks",
    metadata,
    Column("id", Text, primary_key=True),
    Column("project_id", Text, ForeignKey("projects.id"), nullable=False),
    _text("title"),
    Column("profile_id", Text, ForeignKey("agent_profiles.key"), nullable=True),
    Index(None, "project_id"),
    Index(None, "profile_id"),
)

# Seed 001: archived tasks keep their profile id as plain history, without a foreign key.
archived_tasks = Table(
    "archived_tasks",
    metadata,
    Column("id", Text, primary_key=True),
    Column("project_id", Text, nullable=False),
    _text("title"),
    Column("profile_id", Text, nullable=True),
)

agent_profiles = Table(
    "agent_profiles",
    metadata,
    Column("key", Text, primary_key=True),
    Column("id", Text, nullable=False),
    Column("project", Text, nullable=True),
    # Seed 001's columns, with its defaults.
    Column("name", Text, nullable=False),
    _text("description"),
    _text("model"),
    _text("permission_mode"),
    _text("allowed_tools", "[]"),
    # The literal '{}' default is seed 001's legacy; writers always write a JSON list and
    # readers coerce whatever they find (see profile_rows.coerce_mcp_servers).
    _text("mcp_servers", "{}"),
    _text("system_prompt_suffix"),
    _text("install", "{}"),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    # Every other field of the model.
    _text("tags", "[]"),
    _text("extends", nullable=True),
    _text("provider"),
    _text("runtime", nullable=True),
    _text("agent_name"),
    Column("max_tokens_per_task", BigInteger, nullable=True),
    Column("max_turns", Integer, nullable=True),
    Column("temperature", Double, nullable=True),
    Column("top_p", Double, nullable=True),
    _text("mode"),
    _text("color"),
    _text("permission", "[]"),
    _text("harness", "{}"),
    _text("extra_config", "{}"),
    _text("denied_tools", "[]"),
    # Migration 0005: ``allowed_tools`` is the whole tool set ([] = no tools).
    Column("tools_exact", Boolean, nullable=False, server_default=false()),
    _text("sections", "[]"),
    _text("metadata", "{}"),
    _text("fields_set", "[]"),
    # Sync bookkeeping.
    _text("source_path"),
    _text("content_hash"),
    Column("present", Boolean, nullable=False, server_default=true()),
    Column("last_synced_at", Double, nullable=True),
    CheckConstraint(_KEY_RULE.format(n="id"), name="key"),
    Index(None, "id", "project"),
    Index(None, "project", "name"),
    Index(None, "source_path"),
)

mcp_servers = Table(
    "mcp_servers",
    metadata,
    Column("key", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("project", Text, nullable=True),
    Column("transport", Text, nullable=False),
    _text("command"),
    _text("args", "[]"),
    _text("env", "{}"),
    _text("url"),
    _text("headers", "{}"),
    _text("description"),
    _text("notes"),
    Column("builtin", Boolean, nullable=False, server_default=false()),
    _text("source_path"),
    _text("content_hash"),
    Column("present", Boolean, nullable=False, server_default=true()),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    Column("last_synced_at", Double, nullable=True),
    CheckConstraint(_KEY_RULE.format(n="name"), name="key"),
    Index(None, "name", "project"),
    Index(None, "project", "name"),
    Index(None, "source_path"),
)

sync_events = Table(
    "sync_events",
    metadata,
    # BIGINT on PostgreSQL; on SQLite only INTEGER PRIMARY KEY is the autoincrementing rowid.
    Column(
        "id",
        BigInteger().with_variant(Integer, "sqlite"),
        primary_key=True,
        autoincrement=True,
    ),
    Column("at", Double, nullable=False),
    Column("kind", Text, nullable=False),
    _text("entry_kind", "profile"),
    _text("entry_id"),
    Column("project", Text, nullable=True),
    _text("path"),
    _text("diagnostics", "[]"),
    _text("message"),
    Index(None, "at"),
    Index(None, "path"),
    Index(None, "entry_kind", "entry_id"),
)

# One row per vault file sync has seen: what it looked like on disk (mtime and size, so an
# unchanged vault costs one stat per file), the hash of the content last read, and whether
# that content synced (``ok``), failed to parse (``failed``, with its diagnostics, so the same
# broken content is not re-reported) or is gone (``missing``).
sync_files = Table(
    "sync_files",
    metadata,
    Column("path", Text, primary_key=True),
    Column("entry_kind", Text, nullable=False),
    Column("entry_id", Text, nullable=False),
    Column("project", Text, nullable=True),
    Column("mtime_ns", BigInteger, nullable=False),
    Column("size", BigInteger, nullable=False),
    _text("content_hash"),
    Column("status", Text, nullable=False),
    _text("diagnostics", "[]"),
    Column("updated_at", Double, nullable=False),
)

# What a probe of each registry server found (issue 15 item 6): the tools it listed, or why
# it could not list them. ``server_hash`` is the hash of the server definition probed, so an
# entry whose registry file has changed since is known to be stale and is probed again.
mcp_tool_catalog = Table(
    "mcp_tool_catalog",
    metadata,
    Column("key", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("project", Text, nullable=True),
    _text("server_hash"),
    Column("ok", Boolean, nullable=False),
    _text("tools", "[]"),
    _text("error_code"),
    _text("error"),
    _text("server_info"),
    Column("probed_at", Double, nullable=False),
    Column("elapsed_ms", Double, nullable=False),
)

# Facts about the database itself, one value per key: ``vault.path`` (the real path of the
# vault it belongs to), ``vault.id`` (that vault's id, from its ``.roster-vault-id``) and
# ``vault.bound_at``. A database belongs to one vault (issue 13 item 2).
store_meta = Table(
    "store_meta",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)
