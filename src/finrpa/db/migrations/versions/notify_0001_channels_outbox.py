"""Notify: an organisation's notification channels and the outbox of deliveries (SPEC §C16).

Both tables are tenant-scoped and protected by Row-Level Security on PostgreSQL.

Revision ID: notify_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "notify_0001"
down_revision = "0001"
branch_labels = ("notify",)
depends_on = "identity_0001"

_CHANNELS = "notify_channels"
_DELIVERIES = "notify_deliveries"


def upgrade() -> None:
    op.create_table(
        _CHANNELS,
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("org_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("events", sa.JSON, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_notify_channels"),
        sa.CheckConstraint(
            "kind IN ('wecom', 'dingtalk', 'webhook', 'email')", name="ck_notify_channels_kind"
        ),
    )
    op.create_index("ix_notify_channels_org_id", _CHANNELS, ["org_id"])
    op.create_index("uq_notify_channels_org_id_name", _CHANNELS, ["org_id", "name"], unique=True)
    enable_tenant_rls(_CHANNELS)

    op.create_table(
        _DELIVERIES,
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("org_id", sa.String(32), nullable=False),
        sa.Column("channel_id", sa.String(32), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("event_kind", sa.String(40), nullable=False),
        sa.Column("idempotency_key", sa.String(100), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claim_token", sa.String(32), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_notify_deliveries"),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            [f"{_CHANNELS}.id"],
            name="fk_notify_deliveries_channel_id_notify_channels",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("idempotency_key", name="uq_notify_deliveries_idempotency_key"),
        sa.CheckConstraint(
            "status IN ('pending', 'sending', 'sent', 'dead')", name="ck_notify_deliveries_status"
        ),
        sa.CheckConstraint("attempts >= 0", name="ck_notify_deliveries_attempts_not_negative"),
    )
    op.create_index("ix_notify_deliveries_org_id", _DELIVERIES, ["org_id"])
    op.create_index("ix_notify_deliveries_channel_id", _DELIVERIES, ["channel_id"])
    op.create_index("ix_notify_deliveries_due", _DELIVERIES, ["status", "next_attempt_at"])
    enable_tenant_rls(_DELIVERIES)


def downgrade() -> None:
    disable_tenant_rls(_DELIVERIES)
    op.drop_table(_DELIVERIES)
    disable_tenant_rls(_CHANNELS)
    op.drop_table(_CHANNELS)
