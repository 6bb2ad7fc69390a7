"""Cost accounting from recorded calls: real SDK calls against the scripted server write llm_calls rows
through the database recorder; the summary groups them per department, template, tier and day."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from pydantic import BaseModel
from sqlalchemy import select

from finrpa.db.engine import unit_of_work
from finrpa.llm import (
    CallContext,
    DatabaseUsageRecorder,
    LLMCallRecord,
    LLMClient,
    PromptTemplate,
    Tier,
    summarize_llm_costs,
)
from finrpa.llm.models import LLMCall
from finrpa.tenancy import TenantContext, TenantDatabase, open_tenant_database, use_tenant
from tests.fixtures.llm_server import Reply, ScriptedLLMServer, scripted_llm_settings

PROMPT = PromptTemplate(id="test.extract", version=1, system="Extract.", user="{{ text }}")
ORG_A = TenantContext(org_id="org-a", user_id="auditor", org_wide=True)
TODAY = datetime.now(UTC).date()  # usage days are UTC days


class Total(BaseModel):
    amount: str


@pytest.fixture
async def database(migrated_database_url: str) -> AsyncIterator[TenantDatabase]:
    database = open_tenant_database(migrated_database_url)
    yield database
    await database.dispose()


async def _summary(database: TenantDatabase, **kwargs: object) -> list[tuple[object, ...]]:
    with use_tenant(ORG_A):
        async with unit_of_work(database.sessions) as session:
            rows = await summarize_llm_costs(session, "org-a", **kwargs)  # type: ignore[arg-type]
    return [
        (row.department, row.template, row.tier, row.day, row.calls, row.cache_hits, row.input_tokens,
         row.output_tokens, row.cost_usd)
        for row in rows
    ]  # fmt: skip


async def test_calls_are_recorded_and_summarised(database: TenantDatabase, llm_server: ScriptedLLMServer) -> None:
    settings = scripted_llm_settings(
        llm_server,
        llm_price_light_input=0.5, llm_price_light_output=1.5,
        llm_price_heavy_input=10.0, llm_price_heavy_output=30.0,
    )  # fmt: skip
    client = LLMClient.from_settings(settings, DatabaseUsageRecorder(database.sessions))
    ops = CallContext("org-a", dept_id="ops", template_id="bank_statement_download", run_id="r1")
    finance = CallContext("org-a", dept_id="finance", template_id="bank_payment_submission", run_id="r2")
    llm_server.enqueue(
        Reply.json({"amount": "1.00"}, input_tokens=1000, output_tokens=100),
        Reply.invalid_json(), Reply.json({"amount": "2.00"}, input_tokens=2000, output_tokens=200),
        Reply.json({"amount": "3.00"}, input_tokens=100_000, output_tokens=1000),
        Reply.json({"amount": "4.00"}, input_tokens=5000, output_tokens=50),  # org-b's
    )  # fmt: skip

    with use_tenant(TenantContext(org_id="org-a", user_id="operator")):
        await client.call_structured(PROMPT, Total, tier=Tier.LIGHT, context=ops, variables={"text": "a"})
        await client.call_structured(PROMPT, Total, tier=Tier.LIGHT, context=ops, variables={"text": "b"})
        await client.call_structured(PROMPT, Total, tier=Tier.HEAVY, context=finance, variables={"text": "c"})
        await client.record_cache_hit(PROMPT, tier=Tier.LIGHT, context=ops)
    # a worker without a tenant context records for its own organisation
    await client.call_structured(PROMPT, Total, tier=Tier.LIGHT, context=CallContext("org-b"), variables={"text": "d"})
    await client.aclose()

    invalid_reply_tokens = llm_server.requests[1]  # the failed attempt's tokens are billed too
    assert invalid_reply_tokens.model == "scripted-light"
    by_dept = await _summary(database, group_by=["department", "tier"])
    [(dept_f, *_, f_calls, f_hits, f_in, f_out, f_cost), (dept_o, *_, o_calls, o_hits, o_in, o_out, o_cost)] = by_dept
    assert (dept_f, f_calls, f_hits, f_in, f_out) == ("finance", 1, 0, 100_000, 1000)
    assert f_cost == Decimal("1.030000")  # 100k × $10/M + 1k × $30/M
    assert (dept_o, o_calls, o_hits) == ("ops", 3, 1)  # two calls and one cache hit
    assert o_in > 3000 and o_cost == (Decimal(o_in) * Decimal("0.5") + Decimal(o_out) * Decimal("1.5")) / 1_000_000

    [total] = await _summary(database, group_by=[])
    assert total[4:6] == (4, 1)  # org-b's call is not in org-a's totals
    assert total[8] == f_cost + o_cost


async def test_summary_groups_by_day_and_template_within_a_period(database: TenantDatabase) -> None:
    recorder = DatabaseUsageRecorder(database.sessions)
    today = datetime.now(UTC)
    for days_ago, template, cost in [(0, "t1", "0.10"), (0, "t1", "0.20"), (0, "t2", "0.05"), (1, "t1", "1.00"),
                                     (40, "t1", "9.00")]:  # fmt: skip
        await recorder.record(
            LLMCallRecord(
                context=CallContext("org-a", dept_id="ops", template_id=template),
                tier=Tier.STANDARD,
                model="m",
                prompt_id="p",
                prompt_version=1,
                input_tokens=10,
                output_tokens=1,
                cost_usd=Decimal(cost),
                latency_ms=5,
                attempts=1,
                success=True,
                at=today - timedelta(days=days_ago),
            )
        )
    rows = await _summary(database, group_by=["day", "template"], since=TODAY - timedelta(days=7))
    assert [(row[3], row[1], row[4], row[8]) for row in rows] == [
        (TODAY - timedelta(days=1), "t1", 1, Decimal("1.000000")),
        (TODAY, "t1", 2, Decimal("0.300000")),
        (TODAY, "t2", 1, Decimal("0.050000")),
    ]
    with use_tenant(ORG_A):
        async with unit_of_work(database.sessions) as session:
            stored = (await session.execute(select(LLMCall))).scalars().all()
    assert len(stored) == 5 and all(row.org_id == "org-a" for row in stored)


async def test_grouping_by_an_unknown_dimension_is_refused(database: TenantDatabase) -> None:
    from finrpa.exceptions import ValidationFailedError

    with pytest.raises(ValidationFailedError, match="department"):
        await _summary(database, group_by=["colour"])
