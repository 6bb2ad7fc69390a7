"""Runs: worker registry with heartbeats (platform-wide, not tenant data).

Revision ID: runs_0002
Revises: runs_0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "runs_0002"
down_revision = "runs_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("slots", sa.Integer, nullable=False),
        sa.Column("status", sa.String(20), nullable=False, index=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("GRANT SELECT, INSERT, UPDATE ON workers TO finrpa_app")


def downgrade() -> None:
    op.drop_table("workers")
