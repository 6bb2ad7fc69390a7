"""Approvals: approval requests and one decision row per (request, approver), with maker-checker in SQL.

``ck_approval_decisions_not_requester`` refuses a decision by the requester; the composite foreign key
(approval_id, requested_by) makes the denormalised ``requested_by`` the request's own value, and
(org_id, approver_user_id) must be a user of the same organisation. Both tables are tenant-scoped and
protected by Row-Level Security on PostgreSQL.

Revision ID: approvals_0001
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "approvals_0001"
down_revision = "0001"
branch_labels = ("approvals",)
depends_on = ("identity_0001", "identity_0002")  # the application role, and users for the approver key

_REQUESTS = "approval_requests"
_DECISIONS = "approval_decisions"


def _tz() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    _create_requests()
    _create_decisions()


def _create_requests() -> None:
    op.create_table(
        _REQUESTS,
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("org_id", sa.String(32), nullable=False),
        sa.Column("dept_id", sa.String(32), nullable=True),
        sa.Column("bl_id", sa.String(32), nullable=True),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("subtask_id", sa.String(64), nullable=False),
        sa.Column("action", sa.JSON, nullable=False),
        sa.Column("action_summary", sa.String(300), nullable=False),
        sa.Column("payload_hash", sa.String(64), nullable=False),
        sa.Column("risk_level", sa.String(10), nullable=False),
        sa.Column("risk_reasons", sa.JSON, nullable=False),
        sa.Column("evidence_bucket", sa.String(63), nullable=True),
        sa.Column("evidence_key", sa.String(1024), nullable=True),
        sa.Column("evidence_sha256", sa.String(64), nullable=True),
        sa.Column("evidence_size", sa.Integer, nullable=True),
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("required_approvals", sa.Integer, nullable=False),
        sa.Column("approvals", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("timeout_s", sa.Integer, nullable=False),
        sa.Column("expires_at", _tz(), nullable=False),
        sa.Column("decided_at", _tz(), nullable=True),
        sa.Column("resolution", sa.Text, nullable=True),
        sa.Column("created_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_approval_requests"),
        sa.UniqueConstraint(
            "org_id", "run_id", "subtask_id", "payload_hash",
            name="uq_approval_requests_org_id_run_id_subtask_id_payload_hash",
        ),
        sa.UniqueConstraint("org_id", "id", name="uq_approval_requests_org_id_id"),
        sa.UniqueConstraint("id", "requested_by", name="uq_approval_requests_id_requested_by"),
        sa.CheckConstraint(
            "status IN ('PENDING', 'APPROVED', 'REJECTED', 'TIMEOUT', 'CANCELLED')",
            name="ck_approval_requests_status",
        ),
        sa.CheckConstraint(
            "risk_level IN ('low', 'medium', 'high', 'critical')", name="ck_approval_requests_risk_level"
        ),
        sa.CheckConstraint("required_approvals >= 1", name="ck_approval_requests_required_approvals"),
        sa.CheckConstraint(
            "approvals >= 0 AND approvals <= required_approvals", name="ck_approval_requests_approvals"
        ),
        sa.CheckConstraint(
            "(status = 'PENDING') = (decided_at IS NULL)", name="ck_approval_requests_decided_at"
        ),
    )  # fmt: skip
    op.create_index("ix_approval_requests_org_id", _REQUESTS, ["org_id"])
    op.create_index("ix_approval_requests_dept_id", _REQUESTS, ["dept_id"])
    op.create_index("ix_approval_requests_bl_id", _REQUESTS, ["bl_id"])
    op.create_index("ix_approval_requests_run_id", _REQUESTS, ["run_id"])
    op.create_index("ix_approval_requests_status_expires_at", _REQUESTS, ["status", "expires_at"])
    enable_tenant_rls(_REQUESTS)


def _create_decisions() -> None:
    op.create_table(
        _DECISIONS,
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("org_id", sa.String(32), nullable=False),
        sa.Column("approval_id", sa.String(32), nullable=False),
        sa.Column("approver_user_id", sa.String(32), nullable=False),
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("payload_hash", sa.String(64), nullable=False),
        sa.Column("decided_at", _tz(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_approval_decisions"),
        sa.UniqueConstraint(
            "approval_id", "approver_user_id", name="uq_approval_decisions_approval_id_approver_user_id"
        ),
        sa.ForeignKeyConstraint(
            ["org_id", "approval_id"],
            [f"{_REQUESTS}.org_id", f"{_REQUESTS}.id"],
            name="fk_approval_decisions_org_id_approval_requests",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["approval_id", "requested_by"],
            [f"{_REQUESTS}.id", f"{_REQUESTS}.requested_by"],
            name="fk_approval_decisions_approval_id_approval_requests",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id", "approver_user_id"],
            ["users.org_id", "users.id"],
            name="fk_approval_decisions_org_id_users",
        ),
        sa.CheckConstraint("approver_user_id <> requested_by", name="ck_approval_decisions_not_requester"),
        sa.CheckConstraint("verdict IN ('approve', 'reject')", name="ck_approval_decisions_verdict"),
    )
    op.create_index("ix_approval_decisions_org_id", _DECISIONS, ["org_id"])
    op.create_index("ix_approval_decisions_approval_id", _DECISIONS, ["approval_id"])
    enable_tenant_rls(_DECISIONS)


def downgrade() -> None:
    disable_tenant_rls(_DECISIONS)
    op.drop_table(_DECISIONS)
    disable_tenant_rls(_REQUESTS)
    op.drop_table(_REQUESTS)
