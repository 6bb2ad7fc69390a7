"""Vault: per-organisation wrapped data keys, encrypted secrets, and the append-only credential read log.

``credential_reads`` refuses UPDATE and DELETE with triggers on both backends; on PostgreSQL the
application role also loses those privileges, so the log can only grow.

Revision ID: identity_0003
Revises: identity_0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "identity_0003"
down_revision = "identity_0002"
branch_labels = None
depends_on = None

TABLES = ("vault_data_keys", "vault_secrets", "credential_reads")

_PG_APPEND_ONLY = """
CREATE FUNCTION finrpa_credential_reads_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credential_reads is append-only: % is not allowed', TG_OP;
END
$$
"""


def _id(name: str, *args: sa.ForeignKey, nullable: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.String(32), *args, nullable=nullable)


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "vault_data_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        _id("org_id"),
        sa.Column("wrapped_key", sa.LargeBinary, nullable=False),
        sa.Column("kek_id", sa.String(16), nullable=False),
        sa.Column("rewrapped_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.UniqueConstraint("org_id"),
    )
    op.create_index("ix_vault_data_keys_org_id", "vault_data_keys", ["org_id"])
    op.create_table(
        "vault_secrets",
        sa.Column("id", sa.String(32), primary_key=True),
        _id("org_id"),
        _id("dept_id", nullable=True),
        _id("bl_id", nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("description", sa.String(500), nullable=False),
        sa.Column("ciphertext", sa.LargeBinary, nullable=False),
        _id("data_key_id", sa.ForeignKey("vault_data_keys.id")),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        _created(),
        sa.UniqueConstraint("org_id", "name"),
        sa.CheckConstraint("kind IN ('password', 'totp_seed', 'token', 'generic')", name="kind"),
    )
    for column in ("org_id", "dept_id", "bl_id", "data_key_id"):
        op.create_index(f"ix_vault_secrets_{column}", "vault_secrets", [column])
    op.create_table(
        "credential_reads",
        sa.Column("id", sa.String(32), primary_key=True),
        _id("org_id"),
        _id("secret_id"),
        sa.Column("secret_name", sa.String(200), nullable=False),
        sa.Column("actor_user_id", sa.String(64), nullable=False),
        _id("actor_api_key_id", nullable=True),
        sa.Column("purpose", sa.String(200), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=True),
        sa.Column("rule", sa.String(32), nullable=False),
        _created(),
    )
    for column in ("org_id", "secret_id", "run_id"):
        op.create_index(f"ix_credential_reads_{column}", "credential_reads", [column])
    for table in TABLES:
        enable_tenant_rls(table)
    _make_reads_append_only()


def _make_reads_append_only() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_APPEND_ONLY)
        op.execute(
            "CREATE TRIGGER credential_reads_append_only BEFORE UPDATE OR DELETE ON credential_reads "
            "FOR EACH ROW EXECUTE FUNCTION finrpa_credential_reads_append_only()"
        )
        op.execute(
            "CREATE TRIGGER credential_reads_no_truncate BEFORE TRUNCATE ON credential_reads "
            "FOR EACH STATEMENT EXECUTE FUNCTION finrpa_credential_reads_append_only()"
        )
        op.execute("REVOKE UPDATE, DELETE, TRUNCATE ON credential_reads FROM finrpa_app")
        return
    for operation in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER credential_reads_no_{operation.lower()} BEFORE {operation} ON credential_reads "
            f"BEGIN SELECT RAISE(ABORT, 'credential_reads is append-only: {operation} is not allowed'); END"
        )


def downgrade() -> None:
    for table in reversed(TABLES):
        disable_tenant_rls(table)
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS finrpa_credential_reads_append_only()")
