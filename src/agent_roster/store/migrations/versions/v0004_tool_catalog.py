"""The MCP tool catalog: what probing each registry server found.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mcp_tool_catalog",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("project", sa.Text(), nullable=True),
        sa.Column("server_hash", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("tools", sa.Text(), nullable=False, server_default=sa.text("'[]'")),
        sa.Column("error_code", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("error", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("server_info", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("probed_at", sa.Double(), nullable=False),
        sa.Column("elapsed_ms", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_mcp_tool_catalog"),
    )


def downgrade() -> None:
    op.drop_table("mcp_tool_catalog")
