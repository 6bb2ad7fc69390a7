"""Dashboard numbers: runs by status and success rate under the caller's scope; LLM cost and cache hit rate."""

from __future__ import annotations

import pytest

from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_summary_counts_runs_by_status_within_the_callers_scope(world: World) -> None:
    first = await world.create_task()
    await world.create_task()
    await world.call("POST", f"/api/v1/tasks/{first['id']}/cancel", "a", "operator")
    summary = (await world.call("GET", "/api/v1/metrics/summary", "a", "operator")).json()
    assert summary["runs_by_status"] == {"PENDING": 1, "ABORTED": 1}
    assert summary["finished"] == 1 and summary["success_rate"] == 0.0
    assert summary["llm"]["calls"] == 0 and summary["cache_hit_rate"] is None and summary["cache_alert"] is None
    other_department = (await world.call("GET", "/api/v1/metrics/summary", "a", "risk_op")).json()
    assert other_department["runs_total"] == 0
    assert (await world.call("GET", "/api/v1/metrics/summary", "b", "admin")).json()["runs_total"] == 0


async def test_costs_and_router_decisions_answer_grouped_rows(world: World) -> None:
    costs = await world.call(
        "GET", "/api/v1/metrics/costs", "a", "admin", params=[("group_by", "tier"), ("group_by", "day")]
    )
    assert costs.status_code == 200 and costs.json() == []
    bad = await world.call("GET", "/api/v1/metrics/costs", "a", "admin", params={"group_by": "colour"})
    assert bad.status_code == 422
    backwards = await world.call(
        "GET", "/api/v1/metrics/summary", "a", "admin", params={"since": "2026-02-01", "until": "2026-01-01"}
    )
    assert backwards.status_code == 422
    assert (await world.call("GET", "/api/v1/metrics/router-decisions", "a", "admin")).json() == []
