"""Cost accounting and router-decision storage over the LLM layer's tables (SPEC C7).

``summarize_llm_costs`` aggregates calls, tokens, cache hits and estimated USD per organisation, grouped by
any of department, template, tier, model and day; the API and the dashboard call it with the caller's
session. Services never commit: the caller's unit of work does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.db.engine import unit_of_work
from finrpa.exceptions import DatabaseUnavailableError, ValidationFailedError
from finrpa.llm.repository import COST_DIMENSIONS, LLMCallRepository
from finrpa.llm.router import RoutingDecision
from finrpa.llm.tenant_scope import writing_for

CostDimension = Literal["department", "template", "tier", "model", "day"]


@dataclass(frozen=True)
class CostSummaryRow:
    """One group of calls; a dimension that was not grouped by is None."""

    department: str | None
    template: str | None
    tier: str | None
    model: str | None
    day: date | None
    calls: int
    cache_hits: int
    successes: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal

    @property
    def llm_calls(self) -> int:
        """Calls that reached a model (the rest were answered by the action cache)."""
        return self.calls - self.cache_hits

    @property
    def cache_hit_rate(self) -> float | None:
        return self.cache_hits / self.calls if self.calls else None


@dataclass(frozen=True)
class RunUsageRow:
    """A run's LLM usage for one prompt version, tier and model."""

    prompt_id: str
    prompt_version: int
    tier: str
    model: str
    calls: int
    cache_hits: int
    successes: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal

    @property
    def llm_calls(self) -> int:
        return self.calls - self.cache_hits


@dataclass(frozen=True)
class RunLLMUsage:
    """What one run asked of the LLM: totals and one row per prompt version, tier and model."""

    run_id: str
    rows: list[RunUsageRow]

    @property
    def llm_calls(self) -> int:
        return sum(row.llm_calls for row in self.rows)

    @property
    def cache_hits(self) -> int:
        return sum(row.cache_hits for row in self.rows)

    @property
    def tokens(self) -> int:
        return sum(row.input_tokens + row.output_tokens for row in self.rows)

    @property
    def cost_usd(self) -> Decimal:
        return sum((row.cost_usd for row in self.rows), Decimal(0))

    def as_dict(self) -> dict[str, object]:
        return {
            "llm_calls": self.llm_calls,
            "cache_hits": self.cache_hits,
            "tokens": self.tokens,
            "cost_usd": str(self.cost_usd),
            "by_prompt": [
                {
                    "prompt": f"{row.prompt_id}@v{row.prompt_version}",
                    "tier": row.tier,
                    "model": row.model,
                    "llm_calls": row.llm_calls,
                    "cache_hits": row.cache_hits,
                    "input_tokens": row.input_tokens,
                    "output_tokens": row.output_tokens,
                    "cost_usd": str(row.cost_usd),
                }
                for row in self.rows
            ],
        }


@dataclass(frozen=True)
class RouterDecisionCount:
    tier: str
    complexity: str
    promoted: bool
    decisions: int


async def summarize_llm_costs(
    session: AsyncSession,
    org_id: str,
    *,
    group_by: Sequence[CostDimension] = ("day",),
    since: date | None = None,
    until: date | None = None,
) -> list[CostSummaryRow]:
    """Totals of ``org_id``'s calls between ``since`` and ``until`` (inclusive days, UTC), per group."""
    unknown = [name for name in group_by if name not in COST_DIMENSIONS]
    if unknown:
        raise ValidationFailedError(f"Cannot group LLM costs by {unknown}; use {sorted(COST_DIMENSIONS)}.")
    dimensions = list(dict.fromkeys(group_by))
    rows = await LLMCallRepository(session).cost_rows(org_id, dimensions, since, until)
    return [_summary(dict(row._mapping)) for row in rows]


async def run_llm_usage(session: AsyncSession, org_id: str, run_id: str) -> RunLLMUsage:
    """The LLM calls (and action-cache hits that replaced calls) recorded for one run of ``org_id``."""
    rows = await LLMCallRepository(session).run_usage_rows(org_id, run_id)
    return RunLLMUsage(
        run_id=run_id,
        rows=[
            RunUsageRow(
                prompt_id=str(row.prompt_id),
                prompt_version=int(row.prompt_version),
                tier=str(row.tier),
                model=str(row.model),
                calls=int(row.calls),
                cache_hits=int(row.cache_hits),
                successes=int(row.successes),
                input_tokens=int(row.input_tokens),
                output_tokens=int(row.output_tokens),
                cost_usd=Decimal(str(row.cost_usd)).quantize(Decimal("0.000001")),
            )
            for row in rows
        ],
    )


async def count_router_decisions(
    session: AsyncSession, org_id: str, *, since: date | None = None, until: date | None = None
) -> list[RouterDecisionCount]:
    rows = await LLMCallRepository(session).decision_counts(org_id, since, until)
    return [RouterDecisionCount(row.tier, row.complexity, bool(row.promoted), int(row.decisions)) for row in rows]


class DatabaseDecisionSink:
    """Stores each routing decision with its page features in ``llm_router_decisions``."""

    def __init__(self, factory: async_sessionmaker[AsyncSession]) -> None:
        self._factory = factory

    async def store(self, org_id: str, run_id: str | None, decision: RoutingDecision) -> None:
        try:
            with writing_for(org_id, "record a model router decision"):
                async with unit_of_work(self._factory) as session:
                    LLMCallRepository(session).add_decision(org_id, run_id, decision)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailableError(
                f"Could not store the router decision for org {org_id} ({type(exc).__name__}). Check the database."
            ) from exc


def _summary(values: dict[str, object]) -> CostSummaryRow:
    day = values.get("day")
    return CostSummaryRow(
        department=_text(values.get("department")),
        template=_text(values.get("template")),
        tier=_text(values.get("tier")),
        model=_text(values.get("model")),
        day=date.fromisoformat(day) if isinstance(day, str) else day if isinstance(day, date) else None,
        calls=int(str(values["calls"])),
        cache_hits=int(str(values["cache_hits"])),
        successes=int(str(values["successes"])),
        input_tokens=int(str(values["input_tokens"])),
        output_tokens=int(str(values["output_tokens"])),
        cost_usd=Decimal(str(values["cost_usd"])).quantize(Decimal("0.000001")),
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value)
