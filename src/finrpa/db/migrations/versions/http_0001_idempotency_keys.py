"""HTTP API: stored responses of POSTs sent with an Idempotency-Key.

Revision ID: http_0001
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "http_0001"
down_revision = "0001"
branch_labels = ("http",)
depends_on = "identity_0001"


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("caller", sa.String(64), nullable=False),
        sa.Column("route", sa.String(200), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response_body", sa.JSON, nullable=False),
        sa.Column("location", sa.String(500), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("org_id", "caller", "route", "key", name="uq_idempotency_keys_org_id_caller_route_key"),
    )
    enable_tenant_rls("idempotency_keys")


def downgrade() -> None:
    disable_tenant_rls("idempotency_keys")
    op.drop_table("idempotency_keys")
