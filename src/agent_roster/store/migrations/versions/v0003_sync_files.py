"""Sync bookkeeping per vault file: stat fast path and failure tracking.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sync_files",
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("entry_kind", sa.Text(), nullable=False),
        sa.Column("entry_id", sa.Text(), nullable=False),
        sa.Column("project", sa.Text(), nullable=True),
        sa.Column("mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("content_hash", sa.Text(), nullable=False, server_default=sa.text("''")),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("diagnostics", sa.Text(), nullable=False, server_default=sa.text("'[]'")),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("path", name="pk_sync_files"),
    )


def downgrade() -> None:
    op.drop_table("sync_files")
