"""Agent profiles, the MCP registry copy and sync events; seed 001's ALTERs.

``agent_profiles`` has seed 001's columns plus every model field and the sync bookkeeping;
its primary key is the scoped ``key`` (see ``tables.py``). The three ALTERs of seed 001's
"Migrations" section run in batch mode, which on SQLite rebuilds the table (SQLite cannot
add a foreign key with ALTER TABLE) and on PostgreSQL is a plain ALTER.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_KEY_RULE = (
    "(project IS NULL AND key = {n}) OR (project IS NOT NULL AND key = project || '/' || {n})"
)


def _text(name: str, default: str = "") -> sa.Column[str]:
    return sa.Column(name, sa.Text(), nullable=False, server_default=sa.text(repr(default)))


def upgrade() -> None:
    op.create_table(
        "agent_profiles",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("project", sa.Text(), nullable=True),
        sa.Column("name", sa.Text(), nullable=False),
        _text("description"),
        _text("model"),
        _text("permission_mode"),
        _text("allowed_tools", "[]"),
        _text("mcp_servers", "{}"),
        _text("system_prompt_suffix"),
        _text("install", "{}"),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        _text("tags", "[]"),
        sa.Column("extends", sa.Text(), nullable=True),
        _text("provider"),
        sa.Column("runtime", sa.Text(), nullable=True),
        _text("agent_name"),
        sa.Column("max_tokens_per_task", sa.BigInteger(), nullable=True),
        sa.Column("max_turns", sa.Integer(), nullable=True),
        sa.Column("temperature", sa.Double(), nullable=True),
        sa.Column("top_p", sa.Double(), nullable=True),
        _text("mode"),
        _text("color"),
        _text("permission", "[]"),
        _text("harness", "{}"),
        _text("extra_config", "{}"),
        _text("denied_tools", "[]"),
        _text("sections", "[]"),
        _text("metadata", "{}"),
        _text("fields_set", "[]"),
        _text("source_path"),
        _text("content_hash"),
        sa.Column("present", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("last_synced_at", sa.Double(), nullable=True),
        sa.PrimaryKeyConstraint("key", name="pk_agent_profiles"),
        sa.CheckConstraint(_KEY_RULE.format(n="id"), name="ck_agent_profiles_key"),
    )
    op.create_index("ix_agent_profiles_id_project", "agent_profiles", ["id", "project"])
    op.create_index("ix_agent_profiles_project_name", "agent_profiles", ["project", "name"])
    op.create_index("ix_agent_profiles_source_path", "agent_profiles", ["source_path"])

    op.create_table(
        "mcp_servers",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("project", sa.Text(), nullable=True),
        sa.Column("transport", sa.Text(), nullable=False),
        _text("command"),
        _text("args", "[]"),
        _text("env", "{}"),
        _text("url"),
        _text("headers", "{}"),
        _text("description"),
        _text("notes"),
        sa.Column("builtin", sa.Boolean(), nullable=False, server_default=sa.false()),
        _text("source_path"),
        _text("content_hash"),
        sa.Column("present", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("last_synced_at", sa.Double(), nullable=True),
        sa.PrimaryKeyConstraint("key", name="pk_mcp_servers"),
        sa.CheckConstraint(_KEY_RULE.format(n="name"), name="ck_mcp_servers_key"),
    )
    op.create_index("ix_mcp_servers_name_project", "mcp_servers", ["name", "project"])
    op.create_index("ix_mcp_servers_project_name", "mcp_servers", ["project", "name"])
    op.create_index("ix_mcp_servers_source_path", "mcp_servers", ["source_path"])

    op.create_table(
        "sync_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=False,
            autoincrement=True,
        ),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        _text("entry_kind", "profile"),
        _text("entry_id"),
        sa.Column("project", sa.Text(), nullable=True),
        _text("path"),
        _text("diagnostics", "[]"),
        _text("message"),
        sa.PrimaryKeyConstraint("id", name="pk_sync_events"),
    )
    op.create_index("ix_sync_events_at", "sync_events", ["at"])
    op.create_index("ix_sync_events_path", "sync_events", ["path"])
    op.create_index("ix_sync_events_entry_kind_entry_id", "sync_events", ["entry_kind", "entry_id"])

    # Seed 001, "Migrations".
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("profile_id", sa.Text(), nullable=True))
        batch.create_foreign_key(
            "fk_tasks_profile_id_agent_profiles", "agent_profiles", ["profile_id"], ["key"]
        )
        batch.create_index("ix_tasks_profile_id", ["profile_id"])
    with op.batch_alter_table("projects") as batch:
        batch.add_column(sa.Column("default_profile_id", sa.Text(), nullable=True))
        batch.create_foreign_key(
            "fk_projects_default_profile_id_agent_profiles",
            "agent_profiles",
            ["default_profile_id"],
            ["key"],
        )
        batch.create_index("ix_projects_default_profile_id", ["default_profile_id"])
    with op.batch_alter_table("archived_tasks") as batch:
        batch.add_column(sa.Column("profile_id", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("archived_tasks") as batch:
        batch.drop_column("profile_id")
    with op.batch_alter_table("projects") as batch:
        batch.drop_index("ix_projects_default_profile_id")
        batch.drop_constraint("fk_projects_default_profile_id_agent_profiles", type_="foreignkey")
        batch.drop_column("default_profile_id")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_index("ix_tasks_profile_id")
        batch.drop_constraint("fk_tasks_profile_id_agent_profiles", type_="foreignkey")
        batch.drop_column("profile_id")
    op.drop_table("sync_events")
    op.drop_table("mcp_servers")
    op.drop_table("agent_profiles")
