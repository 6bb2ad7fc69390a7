"""Policy: organisations' own Cedar policies, the append-only policy decision log, capability-token uses.

``policy_decisions`` is append-only in the database itself, like the audit log:

* SQLite: BEFORE UPDATE / BEFORE DELETE triggers RAISE(ABORT);
* PostgreSQL: a row-level BEFORE UPDATE OR DELETE and a statement-level BEFORE TRUNCATE trigger raise for
  every role, and ``finrpa_app`` has UPDATE, DELETE and TRUNCATE revoked.

All three tables are tenant-scoped with Row-Level Security.

Revision ID: policy_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "policy_0001"
down_revision = "0001"
branch_labels = ("policy",)
depends_on = "identity_0001"

_POLICIES = "policy_org_policies"
_DECISIONS = "policy_decisions"
_USES = "policy_token_uses"

_SQLITE_TRIGGERS = {
    "policy_decisions_no_update": (
        f"BEFORE UPDATE ON {_DECISIONS} BEGIN "
        "SELECT RAISE(ABORT, 'policy_decisions is append-only: rows cannot be updated'); END"
    ),
    "policy_decisions_no_delete": (
        f"BEFORE DELETE ON {_DECISIONS} BEGIN "
        "SELECT RAISE(ABORT, 'policy_decisions is append-only: rows cannot be deleted'); END"
    ),
}
_PG_FUNCTION = """
CREATE OR REPLACE FUNCTION finrpa_policy_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$
"""
_PG_TRIGGERS = {
    "policy_decisions_append_only": "BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW "
    "EXECUTE FUNCTION finrpa_policy_reject_change()",
    "policy_decisions_no_truncate": "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT "
    "EXECUTE FUNCTION finrpa_policy_reject_change()",
}
_PG_GRANTS = """
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finrpa_app') THEN
        GRANT SELECT, INSERT ON policy_decisions TO finrpa_app;
        REVOKE UPDATE, DELETE, TRUNCATE ON policy_decisions FROM finrpa_app;
    END IF;
END
$$
"""


def _tz() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _create_tables() -> None:
    op.create_table(
        _POLICIES,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("cedar_text", sa.Text, nullable=False),
        sa.Column("policy_ids", sa.JSON, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("disabled_at", _tz()),
        sa.Column("disabled_by", sa.String(64)),
    )
    op.create_index("ix_policy_org_policies_org_enabled", _POLICIES, ["org_id", "enabled"])
    op.create_table(
        _DECISIONS,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("run_id", sa.String(64)),
        sa.Column("node_id", sa.String(64)),
        sa.Column("principal_type", sa.String(16), nullable=False),
        sa.Column("principal_id", sa.String(64), nullable=False),
        sa.Column("action", sa.String(128), nullable=False),
        sa.Column("resource_type", sa.String(32), nullable=False),
        sa.Column("resource_id", sa.String(256), nullable=False),
        sa.Column("decision", sa.String(24), nullable=False),
        sa.Column("reason_codes", sa.JSON, nullable=False),
        sa.Column("context", sa.JSON, nullable=False),
        sa.Column("policy_version", sa.String(32), nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.CheckConstraint(
            "decision IN ('allow', 'deny', 'require_approval')", name=op.f("ck_policy_decisions_decision_known")
        ),
    )
    op.create_index("ix_policy_decisions_org_run", _DECISIONS, ["org_id", "run_id"])
    op.create_index("ix_policy_decisions_org_created", _DECISIONS, ["org_id", "created_at"])
    op.create_table(
        _USES,
        sa.Column("jti", sa.String(64), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("uses", sa.Integer, nullable=False),
        sa.Column("max_uses", sa.Integer, nullable=False),
        sa.Column("expires_at", _tz(), nullable=False, index=True),
        sa.Column("first_used_at", _tz(), nullable=False),
        sa.CheckConstraint("uses >= 1 AND uses <= max_uses", name=op.f("ck_policy_token_uses_uses_within_limit")),
    )


def _protect_decisions() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        for name, body in _PG_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body.format(t=_DECISIONS)}")
        op.execute(_PG_GRANTS)
        op.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON {_DECISIONS} FROM PUBLIC")
        return
    for name, body in _SQLITE_TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {body}")


def _unprotect_decisions() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in _PG_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {_DECISIONS}")
        op.execute("DROP FUNCTION IF EXISTS finrpa_policy_reject_change()")
        return
    for name in _SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")


def upgrade() -> None:
    _create_tables()
    _protect_decisions()
    for table in (_POLICIES, _DECISIONS, _USES):
        enable_tenant_rls(table)


def downgrade() -> None:
    for table in (_USES, _DECISIONS, _POLICIES):
        disable_tenant_rls(table)
    _unprotect_decisions()
    op.drop_table(_USES)
    op.drop_index("ix_policy_decisions_org_created", table_name=_DECISIONS)
    op.drop_index("ix_policy_decisions_org_run", table_name=_DECISIONS)
    op.drop_table(_DECISIONS)
    op.drop_index("ix_policy_org_policies_org_enabled", table_name=_POLICIES)
    op.drop_table(_POLICIES)
