"""HTTP routes of the dashboard's numbers (``/metrics/…``): run outcomes, LLM cost, cache hit rate.

Everything is computed from the database under the caller's tenant scope: runs of departments the caller
cannot see are not counted. LLM calls are grouped by department; a caller who is not org-wide sees the costs
of the departments they can see only (calls with no department are org-wide overhead, shown to org-wide
callers).

The cache alert compares the action-cache hit rate of the most recent day with calls against the days before
it (up to a week): a fall of at least ``FINRPA_ACTION_CACHE_ALERT_DROP`` suggests the target portal changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.plan import FINAL_STATUSES, TaskStatus
from finrpa.db.base import utcnow
from finrpa.exceptions import ValidationFailedError
from finrpa.http.caller import CurrentUser, DbSession, State
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.auth import Authenticated
from finrpa.llm.service import CostDimension, CostSummaryRow, count_router_decisions, summarize_llm_costs
from finrpa.runs.models import Run
from finrpa.tenancy.context import require_tenant

router = APIRouter(prefix="/metrics", tags=["metrics"], responses=PROBLEM_RESPONSES)

DEFAULT_PERIOD_DAYS = 30
MAX_PERIOD_DAYS = 366
BASELINE_DAYS = 7
MIN_CALLS_FOR_ALERT = 20


class CostTotals(BaseModel):
    calls: int
    llm_calls: int = Field(description="Calls that reached a model (the rest were cache hits).")
    cache_hits: int
    successes: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal


class CacheAlert(BaseModel):
    message: str
    recent_rate: float
    baseline_rate: float
    day: date


class Summary(BaseModel):
    since: date
    until: date
    runs_by_status: dict[TaskStatus, int]
    runs_total: int
    finished: int
    success_rate: float | None = Field(description="COMPLETED / finished runs; null when none finished.")
    llm: CostTotals
    cache_hit_rate: float | None
    cache_alert: CacheAlert | None


class CostRow(BaseModel):
    department: str | None
    template: str | None
    tier: str | None
    model: str | None
    day: date | None
    calls: int
    llm_calls: int
    cache_hits: int
    cache_hit_rate: float | None
    successes: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal


class RouterDecisionRow(BaseModel):
    tier: str
    complexity: str
    promoted: bool
    decisions: int


Since = Annotated[date | None, Query(description="First day (UTC), default 30 days ago.")]
Until = Annotated[date | None, Query(description="Last day (UTC, inclusive), default today.")]


@router.get("/summary", summary="Runs by status, success rate, LLM cost and cache hit rate")
async def summary(
    caller: CurrentUser, session: DbSession, state: State, since: Since = None, until: Until = None
) -> Summary:
    first, last = _period(since, until)
    counts = await runs_by_status(session, first, last)
    finished = sum(count for status, count in counts.items() if status in FINAL_STATUSES)
    completed = counts.get(TaskStatus.COMPLETED, 0)
    by_day = await _visible_costs(session, caller, ("department", "day"), first, last)
    totals = _totals(by_day)
    return Summary(
        since=first,
        until=last,
        runs_by_status=counts,
        runs_total=sum(counts.values()),
        finished=finished,
        success_rate=completed / finished if finished else None,
        llm=totals,
        cache_hit_rate=totals.cache_hits / totals.calls if totals.calls else None,
        cache_alert=cache_hit_rate_alert(by_day, state.settings.action_cache_alert_drop),
    )


@router.get("/costs", summary="LLM calls, tokens, cache hits and USD, grouped as asked")
async def costs(
    caller: CurrentUser,
    session: DbSession,
    group_by: Annotated[
        list[CostDimension] | None, Query(description="Repeat: department, template, tier, model, day.")
    ] = None,
    since: Since = None,
    until: Until = None,
) -> list[CostRow]:
    first, last = _period(since, until)
    dimensions: tuple[CostDimension, ...] = tuple(dict.fromkeys(group_by or ["tier"]))
    rows = await _visible_costs(session, caller, dimensions, first, last)
    return [_cost_row(row) for row in rows]


@router.get("/router-decisions", summary="Model-router decisions by tier and page complexity")
async def router_decisions(
    caller: CurrentUser, session: DbSession, since: Since = None, until: Until = None
) -> list[RouterDecisionRow]:
    first, last = _period(since, until)
    rows = await count_router_decisions(session, caller.principal.org_id, since=first, until=last)
    return [
        RouterDecisionRow(tier=r.tier, complexity=r.complexity, promoted=r.promoted, decisions=r.decisions)
        for r in rows
    ]


# -- small functions -----------------------------------------------------------------------------------------


async def runs_by_status(session: AsyncSession, first: date, last: date) -> dict[TaskStatus, int]:
    """Runs created in the period, by status, as the caller's tenant scope sees them."""
    start = datetime.combine(first, time.min, tzinfo=utcnow().tzinfo)
    end = datetime.combine(last + timedelta(days=1), time.min, tzinfo=utcnow().tzinfo)
    statement = (
        select(Run.status, func.count())
        .where(Run.created_at >= start, Run.created_at < end)
        .group_by(Run.status)
    )
    rows = (await session.execute(statement)).all()
    return {TaskStatus(status): int(count) for status, count in rows}


async def _visible_costs(
    session: AsyncSession, caller: Authenticated, dimensions: Sequence[CostDimension], first: date, last: date
) -> list[CostSummaryRow]:
    context = require_tenant()
    grouped: list[CostDimension] = list(dimensions)
    if context.filters_departments and "department" not in grouped:
        grouped.append("department")
    rows = await summarize_llm_costs(session, caller.principal.org_id, group_by=grouped, since=first, until=last)
    if context.filters_departments:
        rows = [row for row in rows if row.department in context.visible_department_ids]
    if "department" in dimensions:
        return rows
    return _merge_departments(rows)


def _merge_departments(rows: list[CostSummaryRow]) -> list[CostSummaryRow]:
    merged: dict[tuple[object, ...], CostSummaryRow] = {}
    for row in rows:
        key = (row.template, row.tier, row.model, row.day)
        earlier = merged.get(key)
        merged[key] = row if earlier is None else _add(earlier, row)
    return [dataclasses.replace(row, department=None) for row in merged.values()]


def _add(a: CostSummaryRow, b: CostSummaryRow) -> CostSummaryRow:
    return CostSummaryRow(
        a.department, a.template, a.tier, a.model, a.day,
        a.calls + b.calls, a.cache_hits + b.cache_hits, a.successes + b.successes,
        a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens, a.cost_usd + b.cost_usd,
    )


def _totals(rows: list[CostSummaryRow]) -> CostTotals:
    calls = sum(r.calls for r in rows)
    hits = sum(r.cache_hits for r in rows)
    return CostTotals(
        calls=calls,
        llm_calls=calls - hits,
        cache_hits=hits,
        successes=sum(r.successes for r in rows),
        input_tokens=sum(r.input_tokens for r in rows),
        output_tokens=sum(r.output_tokens for r in rows),
        cost_usd=sum((r.cost_usd for r in rows), Decimal(0)),
    )


def cache_hit_rate_alert(rows: list[CostSummaryRow], drop: float) -> CacheAlert | None:
    by_day: dict[date, tuple[int, int]] = {}
    for row in rows:
        if row.day is None:
            continue
        calls, hits = by_day.get(row.day, (0, 0))
        by_day[row.day] = (calls + row.calls, hits + row.cache_hits)
    days = sorted(by_day, reverse=True)
    if len(days) < 2:
        return None
    recent_calls, recent_hits = by_day[days[0]]
    baseline = [by_day[day] for day in days[1 : 1 + BASELINE_DAYS]]
    base_calls, base_hits = sum(c for c, _ in baseline), sum(h for _, h in baseline)
    if recent_calls < MIN_CALLS_FOR_ALERT or base_calls < MIN_CALLS_FOR_ALERT:
        return None
    recent_rate, baseline_rate = recent_hits / recent_calls, base_hits / base_calls
    if baseline_rate - recent_rate < drop:
        return None
    message = (
        f"The action-cache hit rate fell from {baseline_rate:.0%} to {recent_rate:.0%} on {days[0]}: the target "
        "system may have changed (a portal redesign). Check recent runs before trusting cached decisions."
    )
    return CacheAlert(message=message, recent_rate=recent_rate, baseline_rate=baseline_rate, day=days[0])


def _period(since: date | None, until: date | None) -> tuple[date, date]:
    last = until or utcnow().date()
    first = since or last - timedelta(days=DEFAULT_PERIOD_DAYS)
    if first > last:
        raise ValidationFailedError("`since` must not be after `until`.")
    if (last - first).days > MAX_PERIOD_DAYS:
        raise ValidationFailedError(f"Ask for at most {MAX_PERIOD_DAYS} days at a time.")
    return first, last


def _cost_row(row: CostSummaryRow) -> CostRow:
    return CostRow(
        department=row.department,
        template=row.template,
        tier=row.tier,
        model=row.model,
        day=row.day,
        calls=row.calls,
        llm_calls=row.llm_calls,
        cache_hits=row.cache_hits,
        cache_hit_rate=row.cache_hit_rate,
        successes=row.successes,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        cost_usd=row.cost_usd,
    )
