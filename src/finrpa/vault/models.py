"""Vault tables: one wrapped data key per organisation, encrypted secrets, and the append-only read log."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id, utcnow
from finrpa.tenancy.scoping import DepartmentScoped

ID = String(32)


class SecretKind(StrEnum):
    PASSWORD = "password"  # noqa: S105 - a kind of secret, not a secret
    TOTP_SEED = "totp_seed"  # base32 seed; the vault turns it into one-time codes
    TOKEN = "token"  # noqa: S105 - a kind of secret, not a secret
    GENERIC = "generic"


class VaultDataKey(TenantScoped, TimestampMixin, Base):
    __tablename__ = "vault_data_keys"
    __table_args__ = (UniqueConstraint("org_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    wrapped_key: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    kek_id: Mapped[str] = mapped_column(String(16), nullable=False)
    rewrapped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class VaultSecret(DepartmentScoped, TimestampMixin, Base):
    """A secret, encrypted; ``dept_id`` is the department whose operators may use it (NULL: org admins)."""

    __tablename__ = "vault_secrets"
    __table_args__ = (
        UniqueConstraint("org_id", "name"),
        CheckConstraint("kind IN ('password', 'totp_seed', 'token', 'generic')", name="kind"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    description: Mapped[str] = mapped_column(String(500), nullable=False, default="")
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    data_key_id: Mapped[str] = mapped_column(ID, ForeignKey("vault_data_keys.id"), nullable=False, index=True)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_by: Mapped[str] = mapped_column(String(64), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)


class CredentialRead(TenantScoped, TimestampMixin, Base):
    """One use of a credential: who, which secret, for what, in which run, when. Append-only."""

    __tablename__ = "credential_reads"

    id: Mapped[str] = mapped_column(ID, primary_key=True, default=new_id)
    secret_id: Mapped[str] = mapped_column(ID, nullable=False, index=True)
    secret_name: Mapped[str] = mapped_column(String(200), nullable=False)
    actor_user_id: Mapped[str] = mapped_column(String(64), nullable=False)
    actor_api_key_id: Mapped[str | None] = mapped_column(ID, nullable=True)
    purpose: Mapped[str] = mapped_column(String(200), nullable=False)
    run_id: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    rule: Mapped[str] = mapped_column(String(32), nullable=False)
