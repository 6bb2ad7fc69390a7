"""Reads and writes of the LLM layer's tables; every query names the organisation explicitly."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from finrpa.llm.models import LLMCall, RouterDecision

if TYPE_CHECKING:
    from finrpa.llm.router import RoutingDecision
    from finrpa.llm.usage import LLMCallRecord

COST_DIMENSIONS = {
    "department": LLMCall.dept_id,
    "template": LLMCall.template_id,
    "tier": LLMCall.tier,
    "model": LLMCall.model,
    "day": LLMCall.day,
}


class LLMCallRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    def add_call(self, record: LLMCallRecord) -> LLMCall:
        row = LLMCall(
            org_id=record.context.org_id,
            dept_id=record.context.dept_id,
            template_id=record.context.template_id,
            run_id=record.context.run_id,
            tier=record.tier.value,
            model=record.model,
            prompt_id=record.prompt_id,
            prompt_version=record.prompt_version,
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            cost_usd=record.cost_usd,
            latency_ms=record.latency_ms,
            attempts=record.attempts,
            success=record.success,
            cached=record.cached,
            day=record.day,
            created_at=record.at,
        )
        self._session.add(row)
        return row

    def add_decision(self, org_id: str, run_id: str | None, decision: RoutingDecision) -> RouterDecision:
        features = decision.features
        row = RouterDecision(
            org_id=org_id,
            run_id=run_id,
            page_signature=decision.page_signature,
            element_count=features.element_count,
            iframe_depth=features.iframe_depth,
            has_shadow_dom=features.has_shadow_dom,
            form_field_count=features.form_field_count,
            dynamic_content=features.dynamic_content,
            complexity=decision.complexity.value,
            tier=decision.tier.value,
            promoted=decision.promoted,
            day=decision.decided_at.date(),
            created_at=decision.decided_at,
        )
        self._session.add(row)
        return row

    async def cost_rows(
        self, org_id: str, dimensions: Sequence[str], since: date | None, until: date | None
    ) -> Sequence[Any]:
        columns = [COST_DIMENSIONS[name].label(name) for name in dimensions]
        statement = (
            select(
                *columns,
                func.count().label("calls"),
                func.coalesce(func.sum(_as_int(LLMCall.cached)), 0).label("cache_hits"),
                func.coalesce(func.sum(_as_int(LLMCall.success)), 0).label("successes"),
                func.coalesce(func.sum(LLMCall.input_tokens), 0).label("input_tokens"),
                func.coalesce(func.sum(LLMCall.output_tokens), 0).label("output_tokens"),
                func.coalesce(func.sum(LLMCall.cost_usd), 0).label("cost_usd"),
            )
            .where(LLMCall.org_id == org_id, *_period(LLMCall.day, since, until))
            .group_by(*columns)
            .order_by(*columns)
        )
        return (await self._session.execute(statement)).all()

    async def run_usage_rows(self, org_id: str, run_id: str) -> Sequence[Any]:
        """The run's calls per prompt (id, version), tier and model, cache hits counted apart."""
        keys = (LLMCall.prompt_id, LLMCall.prompt_version, LLMCall.tier, LLMCall.model)
        statement = (
            select(
                *keys,
                func.count().label("calls"),
                func.coalesce(func.sum(_as_int(LLMCall.cached)), 0).label("cache_hits"),
                func.coalesce(func.sum(_as_int(LLMCall.success)), 0).label("successes"),
                func.coalesce(func.sum(LLMCall.input_tokens), 0).label("input_tokens"),
                func.coalesce(func.sum(LLMCall.output_tokens), 0).label("output_tokens"),
                func.coalesce(func.sum(LLMCall.cost_usd), 0).label("cost_usd"),
            )
            .where(LLMCall.org_id == org_id, LLMCall.run_id == run_id)
            .group_by(*keys)
            .order_by(*keys)
        )
        return (await self._session.execute(statement)).all()

    async def decision_counts(self, org_id: str, since: date | None, until: date | None) -> Sequence[Any]:
        keys = (RouterDecision.tier, RouterDecision.complexity, RouterDecision.promoted)
        statement = (
            select(*keys, func.count().label("decisions"))
            .where(RouterDecision.org_id == org_id, *_period(RouterDecision.day, since, until))
            .group_by(*keys)
            .order_by(*keys)
        )
        return (await self._session.execute(statement)).all()


def _as_int(column: InstrumentedAttribute[bool]) -> ColumnElement[int]:
    return case((column.is_(True), 1), else_=0)


def _period(column: InstrumentedAttribute[date], since: date | None, until: date | None) -> list[ColumnElement[bool]]:
    conditions = []
    if since is not None:
        conditions.append(column >= since)
    if until is not None:
        conditions.append(column <= until)
    return conditions
