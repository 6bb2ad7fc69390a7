"""Identity tables: organisations, departments, business lines, users, role memberships, grants, auth state.

Membership (user, department) is ONE row with role flags, and the database itself refuses a row that is
both operator and approver (``ck_department_memberships_maker_checker``). Composite foreign keys on
(org_id, …) make it impossible for a membership or grant to join a user and a department of different
organisations.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id
from finrpa.tenancy.scoping import TenantRoot

ID = String(32)


def _org_fk() -> Mapped[str]:
    return mapped_column(ID, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False, index=True)


def _flag() -> Mapped[bool]:
    return mapped_column(Boolean, nullable=False, default=False, server_default=false())


class Role(StrEnum):
    """Per-department roles; ``org_admin`` and ``super_admin`` are flags on the user instead."""

    DEPT_ADMIN = "dept_admin"
    OPERATOR = "operator"
    APPROVER = "approver"
    AUDITOR = "auditor"
    VIEWER = "viewer"


class GrantKind(StrEnum):
    CROSS_DEPT_READ = "CROSS_DEPT_READ"
    CROSS_DEPT_APPROVE = "CROSS_DEPT_APPROVE"


class UserKind(StrEnum):
    HUMAN = "human"
    SERVICE = "service"  # acts only through API keys; has no password


class Organization(TenantRoot, TimestampMixin, Base):
    __tablename__ = "organizations"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    slug: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)


class Department(TenantScoped, TimestampMixin, Base):
    __tablename__ = "departments"
    __table_args__ = (UniqueConstraint("org_id", "code"), UniqueConstraint("org_id", "id"))

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = _org_fk()
    code: Mapped[str] = mapped_column(String(64), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)


class BusinessLine(TenantScoped, TimestampMixin, Base):
    __tablename__ = "business_lines"
    __table_args__ = (UniqueConstraint("org_id", "code"), UniqueConstraint("org_id", "id"))

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = _org_fk()
    code: Mapped[str] = mapped_column(String(64), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)


class User(TenantScoped, TimestampMixin, Base):
    __tablename__ = "users"
    __table_args__ = (
        UniqueConstraint("org_id", "username"),
        UniqueConstraint("org_id", "id"),
        CheckConstraint("kind IN ('human', 'service')", name="kind"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = _org_fk()
    username: Mapped[str] = mapped_column(String(64), nullable=False)
    display_name: Mapped[str] = mapped_column(String(200), nullable=False, default="")
    kind: Mapped[str] = mapped_column(String(16), nullable=False, default=UserKind.HUMAN.value)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    is_org_admin: Mapped[bool] = _flag()
    is_super_admin: Mapped[bool] = _flag()
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    failed_login_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class DepartmentMembership(TenantScoped, TimestampMixin, Base):
    """ONE row per (user, department) with the user's role flags in that department."""

    __tablename__ = "department_memberships"
    __table_args__ = (
        UniqueConstraint("user_id", "department_id"),
        ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(["org_id", "department_id"], ["departments.org_id", "departments.id"], ondelete="CASCADE"),
        CheckConstraint("NOT (operator AND approver)", name="maker_checker"),
        CheckConstraint("dept_admin OR operator OR approver OR auditor OR viewer", name="has_role"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    department_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    dept_admin: Mapped[bool] = _flag()
    operator: Mapped[bool] = _flag()
    approver: Mapped[bool] = _flag()
    auditor: Mapped[bool] = _flag()
    viewer: Mapped[bool] = _flag()

    def roles(self) -> frozenset[Role]:
        return frozenset(role for role in Role if getattr(self, role.value))


class BusinessLineMembership(TenantScoped, TimestampMixin, Base):
    """Visibility of a business line's resources (read only); carries no role of its own."""

    __tablename__ = "business_line_memberships"
    __table_args__ = (
        UniqueConstraint("user_id", "business_line_id"),
        ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(
            ["org_id", "business_line_id"],
            ["business_lines.org_id", "business_lines.id"],
            ondelete="CASCADE",
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    business_line_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)


class SpecialGrant(TenantScoped, TimestampMixin, Base):
    """CROSS_DEPT_READ / CROSS_DEPT_APPROVE for one department, or for every department when NULL."""

    __tablename__ = "special_grants"
    __table_args__ = (
        UniqueConstraint("user_id", "kind", "department_id"),
        ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(["org_id", "department_id"], ["departments.org_id", "departments.id"], ondelete="CASCADE"),
        CheckConstraint("kind IN ('CROSS_DEPT_READ', 'CROSS_DEPT_APPROVE')", name="kind"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    kind: Mapped[str] = mapped_column(String(32), nullable=False)
    department_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    granted_by: Mapped[str | None] = mapped_column(ID, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AuthSession(TenantScoped, TimestampMixin, Base):
    """One login: the family of its refresh tokens. Revoking it logs out every token of the family."""

    __tablename__ = "auth_sessions"
    __table_args__ = (ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    source: Mapped[str] = mapped_column(String(64), nullable=False, default="")


class RefreshToken(TenantScoped, TimestampMixin, Base):
    """A refresh token, stored as a keyed hash; ``used_at`` set once it has been exchanged."""

    __tablename__ = "refresh_tokens"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    session_id: Mapped[str] = mapped_column(
        ID, ForeignKey("auth_sessions.id", ondelete="CASCADE"), nullable=False, index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LoginAttempt(TenantScoped, TimestampMixin, Base):
    """Every password attempt against a known organisation, for rate limiting and investigation."""

    __tablename__ = "login_attempts"
    __table_args__ = (Index("ix_login_attempts_org_username_created", "org_id", "username", "created_at"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    username: Mapped[str] = mapped_column(String(64), nullable=False)
    source: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    succeeded: Mapped[bool] = mapped_column(Boolean, nullable=False)


class ApiKey(TenantScoped, TimestampMixin, Base):
    """A service API key: public prefix + keyed hash of the whole key, limited to ``scopes`` (actions)."""

    __tablename__ = "api_keys"
    __table_args__ = (ForeignKeyConstraint(["org_id", "user_id"], ["users.org_id", "users.id"], ondelete="CASCADE"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    org_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    user_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    prefix: Mapped[str] = mapped_column(String(24), nullable=False, unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    scopes: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
