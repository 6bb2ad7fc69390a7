"""Runs: run rows, the append-only run event log, checkpoints and the effect ledger.

Revision ID: runs_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "runs_0001"
down_revision = "0001"
branch_labels = ("runs",)
depends_on = "identity_0001"

_TABLES = ("runs", "run_events", "run_checkpoints", "effects")


def _tz() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("dept_id", sa.String(32), index=True),
        sa.Column("bl_id", sa.String(32), index=True),
        sa.Column("created_by", sa.String(64)),
        sa.Column("template_id", sa.String(100), index=True),
        sa.Column("template_version", sa.Integer),
        sa.Column("goal", sa.Text, nullable=False),
        sa.Column("status", sa.String(20), nullable=False, index=True),
        sa.Column("arguments", sa.JSON, nullable=False),
        sa.Column("versions", sa.JSON, nullable=False),
        sa.Column("error_message", sa.Text),
        sa.Column("result", sa.JSON, nullable=False),
        sa.Column("idempotency_key", sa.String(200)),
        sa.Column("worker_id", sa.String(100), index=True),
        sa.Column("lease_expires_at", _tz()),
        sa.Column("fencing_token", sa.Integer, nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("updated_at", _tz(), nullable=False),
        sa.Column("finished_at", _tz()),
        sa.UniqueConstraint("org_id", "idempotency_key", name="uq_runs_org_id"),
    )
    op.create_table(
        "run_events",
        sa.Column(
            "run_id",
            sa.String(32),
            sa.ForeignKey("runs.id", name="fk_run_events_run_id_runs"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("type", sa.String(50), nullable=False, index=True),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
    )
    op.create_table(
        "run_checkpoints",
        sa.Column(
            "run_id",
            sa.String(32),
            sa.ForeignKey("runs.id", name="fk_run_checkpoints_run_id_runs"),
            primary_key=True,
        ),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("state", sa.JSON, nullable=False),
        sa.Column("storage_state", sa.Text),
        sa.Column("url", sa.Text),
        sa.Column("updated_at", _tz(), nullable=False),
    )
    op.create_table(
        "effects",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False, index=True),
        sa.Column("idempotency_key", sa.String(300), nullable=False, unique=True),
        sa.Column(
            "run_id",
            sa.String(32),
            sa.ForeignKey("runs.id", name="fk_effects_run_id_runs"),
            index=True,
            nullable=False,
        ),
        sa.Column("subtask_id", sa.String(32), nullable=False),
        sa.Column("operation", sa.String(100), nullable=False),
        sa.Column("business_id", sa.String(200), nullable=False),
        sa.Column("args_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(20), nullable=False, index=True),
        sa.Column("external_ref", sa.String(200)),
        sa.Column("fencing_token", sa.Integer, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("created_at", _tz(), nullable=False),
        sa.Column("updated_at", _tz(), nullable=False),
    )
    # The event log is append-only: the database refuses to change or remove an event.
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER run_events_no_{verb.lower()} BEFORE {verb} ON run_events "
                "BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION finrpa_run_events_append_only() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'run_events is append-only'; END $$"
        )
        op.execute(
            "CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON run_events "
            "FOR EACH ROW EXECUTE FUNCTION finrpa_run_events_append_only()"
        )
        op.execute(
            "CREATE TRIGGER run_events_no_truncate BEFORE TRUNCATE ON run_events "
            "FOR EACH STATEMENT EXECUTE FUNCTION finrpa_run_events_append_only()"
        )
    for table in _TABLES:
        enable_tenant_rls(table)


def downgrade() -> None:
    for table in reversed(_TABLES):
        disable_tenant_rls(table)
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS run_events_no_update")
        op.execute("DROP TRIGGER IF EXISTS run_events_no_delete")
    else:
        op.execute("DROP TRIGGER IF EXISTS run_events_no_truncate ON run_events")
        op.execute("DROP TRIGGER IF EXISTS run_events_append_only ON run_events")
    op.drop_table("effects")
    op.drop_table("run_checkpoints")
    op.drop_table("run_events")
    op.drop_table("runs")
    if op.get_bind().dialect.name != "sqlite":
        op.execute("DROP FUNCTION IF EXISTS finrpa_run_events_append_only()")
