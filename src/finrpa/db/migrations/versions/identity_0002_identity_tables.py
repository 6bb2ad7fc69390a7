"""Identity: organisations, departments, business lines, users, memberships, grants and auth state.

Every tenant table gets Row-Level Security (``organizations`` keyed by its own id). The CHECK
``ck_department_memberships_maker_checker`` refuses a membership that is both operator and approver.

Revision ID: identity_0002
Revises: identity_0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "identity_0002"
down_revision = "identity_0001"
branch_labels = None
depends_on = None

TENANT_TABLES = (
    "departments",
    "business_lines",
    "users",
    "department_memberships",
    "business_line_memberships",
    "special_grants",
    "auth_sessions",
    "refresh_tokens",
    "login_attempts",
    "api_keys",
)


def _id(name: str = "id", *args: sa.ForeignKey, nullable: bool = False, primary_key: bool = False) -> sa.Column[str]:
    return sa.Column(name, sa.String(32), *args, nullable=nullable, primary_key=primary_key)


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)


def _flag(name: str) -> sa.Column[bool]:
    return sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false())


def _org_fk() -> sa.Column[str]:
    return sa.Column("org_id", sa.String(32), sa.ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False)


def _user_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE")


def _dept_fk() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id", "department_id"], ["departments.org_id", "departments.id"], ondelete="CASCADE"
    )


def upgrade() -> None:
    _create_directory_tables()
    _create_role_tables()
    _create_auth_tables()
    enable_tenant_rls("organizations", column="id")
    for table in TENANT_TABLES:
        enable_tenant_rls(table)


def _create_directory_tables() -> None:
    op.create_table(
        "organizations",
        _id(primary_key=True),
        sa.Column("slug", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        _created(),
    )
    for table in ("departments", "business_lines"):
        op.create_table(
            table,
            _id(primary_key=True),
            _org_fk(),
            sa.Column("code", sa.String(64), nullable=False),
            sa.Column("name", sa.String(200), nullable=False),
            _created(),
            sa.UniqueConstraint("org_id", "code"),
            sa.UniqueConstraint("org_id", "id"),
        )
        op.create_index(f"ix_{table}_org_id", table, ["org_id"])
    op.create_table(
        "users",
        _id(primary_key=True),
        _org_fk(),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        _flag("is_org_admin"),
        _flag("is_super_admin"),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("failed_login_count", sa.Integer, nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_login_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.UniqueConstraint("org_id", "username"),
        sa.UniqueConstraint("org_id", "id"),
        sa.CheckConstraint("kind IN ('human', 'service')", name="kind"),
    )
    op.create_index("ix_users_org_id", "users", ["org_id"])


def _create_role_tables() -> None:
    op.create_table(
        "department_memberships",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("user_id", nullable=False),
        _id("department_id", nullable=False),
        *(_flag(name) for name in ("dept_admin", "operator", "approver", "auditor", "viewer")),
        _created(),
        sa.UniqueConstraint("user_id", "department_id"),
        _user_fk(),
        _dept_fk(),
        sa.CheckConstraint("NOT (operator AND approver)", name="maker_checker"),
        sa.CheckConstraint("dept_admin OR operator OR approver OR auditor OR viewer", name="has_role"),
    )
    op.create_table(
        "business_line_memberships",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("user_id", nullable=False),
        _id("business_line_id", nullable=False),
        _created(),
        sa.UniqueConstraint("user_id", "business_line_id"),
        _user_fk(),
        sa.ForeignKeyConstraint(
            ["org_id", "business_line_id"],
            ["business_lines.org_id", "business_lines.id"],
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "special_grants",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("user_id", nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        _id("department_id", nullable=True),
        _id("granted_by", nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.UniqueConstraint("user_id", "kind", "department_id"),
        _user_fk(),
        _dept_fk(),
        sa.CheckConstraint("kind IN ('CROSS_DEPT_READ', 'CROSS_DEPT_APPROVE')", name="kind"),
    )
    for table, columns in (
        ("department_memberships", ("org_id", "user_id", "department_id")),
        ("business_line_memberships", ("org_id", "user_id", "business_line_id")),
        ("special_grants", ("org_id", "user_id")),
    ):
        for column in columns:
            op.create_index(f"ix_{table}_{column}", table, [column])


def _create_auth_tables() -> None:
    op.create_table(
        "auth_sessions",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("user_id", nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_reason", sa.String(64), nullable=True),
        sa.Column("source", sa.String(64), nullable=False),
        _created(),
        _user_fk(),
    )
    op.create_table(
        "refresh_tokens",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("session_id", sa.ForeignKey("auth_sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
    )
    op.create_table(
        "login_attempts",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("succeeded", sa.Boolean, nullable=False),
        _created(),
    )
    op.create_index("ix_login_attempts_org_username_created", "login_attempts", ["org_id", "username", "created_at"])
    op.create_table(
        "api_keys",
        _id(primary_key=True),
        _id("org_id", nullable=False),
        _id("user_id", nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("prefix", sa.String(24), nullable=False, unique=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("scopes", sa.JSON, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        _user_fk(),
    )
    for table, columns in (
        ("auth_sessions", ("org_id", "user_id")),
        ("refresh_tokens", ("org_id", "session_id")),
        ("login_attempts", ("org_id",)),
        ("api_keys", ("org_id", "user_id")),
    ):
        for column in columns:
            op.create_index(f"ix_{table}_{column}", table, [column])


def downgrade() -> None:
    for table in (*reversed(TENANT_TABLES), "organizations"):
        disable_tenant_rls(table)
        op.drop_table(table)
