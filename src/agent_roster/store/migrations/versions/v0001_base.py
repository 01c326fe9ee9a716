"""Base tables: projects, tasks and archived tasks, as they were before agent profiles.

Seed 001 describes profiles as an extension of an existing task system ("Tasks gain an
optional profile_id field"), so the first revision is that system and the second adds
profiles with seed 001's ALTERs. Keeping that history also means every test run exercises a
real SQLite batch ALTER with foreign keys, the thing that broke upstream.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.PrimaryKeyConstraint("id", name="pk_projects"),
    )
    op.create_table(
        "tasks",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("project_id", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name="fk_tasks_project_id_projects"
        ),
    )
    op.create_index("ix_tasks_project_id", "tasks", ["project_id"])
    op.create_table(
        "archived_tasks",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("project_id", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.PrimaryKeyConstraint("id", name="pk_archived_tasks"),
    )


def downgrade() -> None:
    op.drop_table("archived_tasks")
    op.drop_index("ix_tasks_project_id", table_name="tasks")
    op.drop_table("tasks")
    op.drop_table("projects")
