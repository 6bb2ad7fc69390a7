"""Audit: the append-only, hash-chained audit log and the per-organisation chain head.

The database itself refuses to change history:

* SQLite: BEFORE UPDATE / BEFORE DELETE triggers on ``audit_records`` RAISE(ABORT) (SQLite has no
  TRUNCATE; ``DELETE FROM`` without WHERE runs the trigger too, because triggers disable the truncate
  optimisation). The chain head may only move forward and cannot be deleted.
* PostgreSQL: row-level BEFORE UPDATE OR DELETE and statement-level BEFORE TRUNCATE triggers raise, for
  every role including the owner; and ``finrpa_app`` (the role the application runs as) has UPDATE,
  DELETE and TRUNCATE revoked, so the application could not even ask.

Both tables are tenant-scoped with Row-Level Security (finrpa.db.migrations.rls).

Revision ID: audit_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "audit_0001"
down_revision = "0001"
branch_labels = ("audit",)
depends_on = "identity_0001"

_RECORDS = "audit_records"
_HEADS = "audit_chain_heads"

_SQLITE_TRIGGERS = {
    "audit_records_no_update": (
        f"BEFORE UPDATE ON {_RECORDS} BEGIN "
        "SELECT RAISE(ABORT, 'audit_records is append-only: rows cannot be updated'); END"
    ),
    "audit_records_no_delete": (
        f"BEFORE DELETE ON {_RECORDS} BEGIN "
        "SELECT RAISE(ABORT, 'audit_records is append-only: rows cannot be deleted'); END"
    ),
    "audit_chain_heads_no_delete": (
        f"BEFORE DELETE ON {_HEADS} BEGIN SELECT RAISE(ABORT, 'audit_chain_heads rows cannot be deleted'); END"
    ),
    "audit_chain_heads_forward_only": (
        f"BEFORE UPDATE ON {_HEADS} WHEN NEW.seq < OLD.seq OR NEW.org_id != OLD.org_id BEGIN "
        "SELECT RAISE(ABORT, 'an audit chain head can only move forward'); END"
    ),
}

_PG_FUNCTIONS = (
    """
CREATE OR REPLACE FUNCTION finrpa_audit_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$
""",
    """
CREATE OR REPLACE FUNCTION finrpa_audit_head_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.seq < OLD.seq OR NEW.org_id <> OLD.org_id THEN
        RAISE EXCEPTION 'an audit chain head can only move forward' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$
""",
)

_PG_TRIGGERS = {
    ("audit_records_append_only", _RECORDS): "BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW "
    "EXECUTE FUNCTION finrpa_audit_reject_change()",
    ("audit_records_no_truncate", _RECORDS): "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT "
    "EXECUTE FUNCTION finrpa_audit_reject_change()",
    ("audit_chain_heads_no_delete", _HEADS): "BEFORE DELETE ON {t} FOR EACH ROW "
    "EXECUTE FUNCTION finrpa_audit_reject_change()",
    ("audit_chain_heads_no_truncate", _HEADS): "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT "
    "EXECUTE FUNCTION finrpa_audit_reject_change()",
    ("audit_chain_heads_forward_only", _HEADS): "BEFORE UPDATE ON {t} FOR EACH ROW "
    "EXECUTE FUNCTION finrpa_audit_head_forward_only()",
}

_PG_GRANTS = """
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finrpa_app') THEN
        GRANT SELECT, INSERT ON audit_records TO finrpa_app;
        REVOKE UPDATE, DELETE, TRUNCATE ON audit_records FROM finrpa_app;
        GRANT SELECT, INSERT, UPDATE ON audit_chain_heads TO finrpa_app;
        REVOKE DELETE, TRUNCATE ON audit_chain_heads FROM finrpa_app;
    END IF;
END
$$
"""


def _tz() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _create_records() -> None:
    op.create_table(
        _RECORDS,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("dept_id", sa.String(32), index=True),
        sa.Column("bl_id", sa.String(32), index=True),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("task_id", sa.String(64)),
        sa.Column("user_id", sa.String(64)),
        sa.Column("action_index", sa.Integer),
        sa.Column("action_type", sa.String(48), nullable=False),
        sa.Column("target_element", sa.Text),
        sa.Column("input_value", sa.Text),
        sa.Column("input_value_raw_hash", sa.String(64)),
        sa.Column("screenshot_bucket", sa.String(63)),
        sa.Column("screenshot_before_key", sa.String(1024)),
        sa.Column("screenshot_before_sha256", sa.String(64)),
        sa.Column("screenshot_after_key", sa.String(1024)),
        sa.Column("screenshot_after_sha256", sa.String(64)),
        sa.Column("has_approval", sa.Boolean, nullable=False),
        sa.Column("approval_id", sa.String(64)),
        sa.Column("approver_user_id", sa.String(64)),
        sa.Column("executor", sa.String(80), nullable=False),
        sa.Column("duration_ms", sa.Integer),
        sa.Column("execution_result", sa.String(64), nullable=False),
        sa.Column("details", sa.Text),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("org_id", "seq", name="uq_audit_records_org_id_seq"),
    )
    op.create_index("ix_audit_records_org_task", _RECORDS, ["org_id", "task_id", "seq"])
    op.create_index("ix_audit_records_org_created", _RECORDS, ["org_id", "created_at"])
    op.create_index("ix_audit_records_org_type", _RECORDS, ["org_id", "action_type", "seq"])
    op.create_index("ix_audit_records_org_user", _RECORDS, ["org_id", "user_id", "seq"])


def _create_heads() -> None:
    op.create_table(
        _HEADS,
        sa.Column("org_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("row_hash", sa.String(64), nullable=False),
        sa.Column("updated_at", _tz(), nullable=False),
    )


def _protect() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for function in _PG_FUNCTIONS:
            op.execute(function)
        for (name, table), body in _PG_TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {body.format(t=table)}")
        op.execute(_PG_GRANTS)
        op.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON {_RECORDS} FROM PUBLIC")
        return
    for name, body in _SQLITE_TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {body}")


def _unprotect() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name, table in _PG_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        op.execute("DROP FUNCTION IF EXISTS finrpa_audit_reject_change()")
        op.execute("DROP FUNCTION IF EXISTS finrpa_audit_head_forward_only()")
        return
    for name in _SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")


def upgrade() -> None:
    _create_records()
    _create_heads()
    _protect()
    enable_tenant_rls(_RECORDS)
    enable_tenant_rls(_HEADS)


def downgrade() -> None:
    disable_tenant_rls(_HEADS)
    disable_tenant_rls(_RECORDS)
    _unprotect()
    op.drop_table(_HEADS)
    op.drop_index("ix_audit_records_org_user", table_name=_RECORDS)
    op.drop_index("ix_audit_records_org_type", table_name=_RECORDS)
    op.drop_index("ix_audit_records_org_created", table_name=_RECORDS)
    op.drop_index("ix_audit_records_org_task", table_name=_RECORDS)
    op.drop_table(_RECORDS)
