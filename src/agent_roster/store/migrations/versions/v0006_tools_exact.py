"""``agent_profiles.tools_exact``: the allowed list is the whole tool set (issue 12 item 2).

Without it a profile that may use no tools at all (``"allowed": [], "exact": true``) would
come back from the database as one with no tool list, which means "the runtime's default":
every tool. Existing rows were written before the field existed, so ``false`` is their
meaning. Batch mode: on SQLite the table is copied, on PostgreSQL it is a plain ALTER.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_profiles") as batch:
        batch.add_column(
            sa.Column("tools_exact", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("agent_profiles") as batch:
        batch.drop_column("tools_exact")
