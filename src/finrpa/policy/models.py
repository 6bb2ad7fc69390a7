"""Policy tables: organisations' own policies, the append-only decision log, and capability-token uses."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, CheckConstraint, DateTime, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id


class OrgPolicy(TenantScoped, TimestampMixin, Base):
    """One Cedar policy text an organisation added (validated against the schema before it was stored)."""

    __tablename__ = "policy_org_policies"
    __table_args__ = (Index("ix_policy_org_policies_org_enabled", "org_id", "enabled"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200))
    cedar_text: Mapped[str] = mapped_column(Text)
    policy_ids: Mapped[list[str]] = mapped_column(JSON)
    sha256: Mapped[str] = mapped_column(String(64))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_by: Mapped[str] = mapped_column(String(64))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_by: Mapped[str | None] = mapped_column(String(64))


class PolicyDecisionRecord(TenantScoped, TimestampMixin, Base):
    """One policy decision, written before the effect it allows. Append-only (the database refuses changes)."""

    __tablename__ = "policy_decisions"
    __table_args__ = (
        Index("ix_policy_decisions_org_run", "org_id", "run_id"),
        Index("ix_policy_decisions_org_created", "org_id", "created_at"),
        CheckConstraint("decision IN ('allow', 'deny', 'require_approval')", name="decision_known"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    run_id: Mapped[str | None] = mapped_column(String(64))
    node_id: Mapped[str | None] = mapped_column(String(64))
    principal_type: Mapped[str] = mapped_column(String(16))
    principal_id: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(128))
    resource_type: Mapped[str] = mapped_column(String(32))
    resource_id: Mapped[str] = mapped_column(String(256))
    decision: Mapped[str] = mapped_column(String(24))
    reason_codes: Mapped[list[str]] = mapped_column(JSON)
    context: Mapped[dict[str, object]] = mapped_column(JSON)
    policy_version: Mapped[str] = mapped_column(String(32))


class CapabilityTokenUse(TenantScoped, Base):
    """How often a capability token (by its jti) has been used; a use beyond ``max_uses`` is a replay."""

    __tablename__ = "policy_token_uses"
    __table_args__ = (CheckConstraint("uses >= 1 AND uses <= max_uses", name="uses_within_limit"),)

    jti: Mapped[str] = mapped_column(String(64), primary_key=True)
    uses: Mapped[int] = mapped_column(Integer)
    max_uses: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    first_used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
