"""Tables of the LLM layer: one ``llm_calls`` row per structured call (or action-cache hit that replaced
one) and one ``llm_router_decisions`` row per tier choice, with the page features it was based on."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Boolean, Date, Index, Integer, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import Base, TenantScoped, TimestampMixin, new_id


class LLMCall(TenantScoped, TimestampMixin, Base):
    __tablename__ = "llm_calls"
    __table_args__ = (Index("ix_llm_calls_org_day", "org_id", "day"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    dept_id: Mapped[str | None] = mapped_column(String(32))
    template_id: Mapped[str | None] = mapped_column(String(128))
    run_id: Mapped[str | None] = mapped_column(String(32), index=True)
    tier: Mapped[str] = mapped_column(String(16))
    model: Mapped[str] = mapped_column(String(128))
    prompt_id: Mapped[str] = mapped_column(String(128))
    prompt_version: Mapped[int] = mapped_column(Integer)
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[Decimal] = mapped_column(Numeric(14, 6), default=Decimal(0))
    latency_ms: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    success: Mapped[bool] = mapped_column(Boolean)
    cached: Mapped[bool] = mapped_column(Boolean, default=False)
    day: Mapped[date] = mapped_column(Date)


class RouterDecision(TenantScoped, TimestampMixin, Base):
    __tablename__ = "llm_router_decisions"
    __table_args__ = (Index("ix_llm_router_decisions_org_day", "org_id", "day"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    run_id: Mapped[str | None] = mapped_column(String(32), index=True)
    page_signature: Mapped[str] = mapped_column(String(64))
    element_count: Mapped[int] = mapped_column(Integer)
    iframe_depth: Mapped[int] = mapped_column(Integer)
    has_shadow_dom: Mapped[bool] = mapped_column(Boolean)
    form_field_count: Mapped[int] = mapped_column(Integer)
    dynamic_content: Mapped[bool] = mapped_column(Boolean)
    complexity: Mapped[str] = mapped_column(String(16))
    tier: Mapped[str] = mapped_column(String(16))
    promoted: Mapped[bool] = mapped_column(Boolean, default=False)
    day: Mapped[date] = mapped_column(Date)
