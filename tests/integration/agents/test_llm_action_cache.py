"""The action cache in use by the LLM loop, against the sandbox bank in headless Chromium with a scripted LLM:
pagination costs one LLM decision, the rest are verified cache hits; a redesign (layout v2) misses with a
reason and nothing wrong is clicked; a cached decision that no longer fits the page is refused, evicted and
counted; another organisation never hits the first one's entries."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from urllib.parse import urlencode

import pytest
import pytest_asyncio

from finrpa.agents.llm_executor import LLMSubtaskExecutor
from finrpa.agents.plan import SubTask
from finrpa.browser import ActionIntent, ActionRecord, Controller, RunBrowser
from finrpa.cache import InProcessKeyValueStore, KeyValueStore
from finrpa.llm import ActionCache, CallContext, LLMClient, ModelRouter, RouterThresholds
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.paging import PAGE_SIZE
from finrpa.sandbox.server import SandboxServer
from tests.fixtures.llm_server import ScriptedLLMServer, scripted_llm_settings
from tests.integration.agents.conftest import configure, sign_in
from tests.integration.agents.scripted_operator import ScriptedOperator, SeenPage, UsageLog, next_page_rule

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ACCOUNT = "1001020309000123456"
START, END = date(2024, 1, 1), date(2024, 3, 20)  # 209 rows: 11 pages, 10 page turns
WALK_GOAL = "逐页浏览交易明细，直到最后一页"
TURN_GOAL = "翻到交易明细的下一页"


class ActionLog:
    """The controller's recorder: every action it carried out (or refused), in order."""

    def __init__(self) -> None:
        self.records: list[ActionRecord] = []

    async def intent(self, intent: ActionIntent) -> None:
        return None

    async def record(self, record: ActionRecord) -> None:
        self.records.append(record)

    def clicks(self) -> list[ActionRecord]:
        return [record for record in self.records if record.kind == "click"]


def statement_url(sandbox: SandboxServer, layout: str, page: int = 1) -> str:
    names = ("acctNo", "startDate", "endDate") if layout == "v1" else ("accountNumber", "beginDt", "finishDt")
    query = dict(zip(names, (ACCOUNT, START.isoformat(), END.isoformat()), strict=True))
    return f"{sandbox.base_url}/bank/statement?{urlencode(query)}&page={page}"


def walk(goal: str = WALK_GOAL, condition: str = "element_absent: [link] 下一页") -> SubTask:
    return SubTask(
        subtask_id="walk",
        index=0,
        goal=goal,
        completion_condition=condition,
        inputs={"allowed_actions": ["click"], "max_steps": 30},
    )


@pytest_asyncio.fixture(loop_scope="module")
async def clients() -> AsyncIterator[list[LLMClient]]:
    opened: list[LLMClient] = []
    yield opened
    for client in opened:
        await client.aclose()


def executor(
    clients: list[LLMClient],
    server: ScriptedLLMServer,
    store: KeyValueStore,
    controller: Controller,
    org_id: str,
    usage: UsageLog,
) -> tuple[LLMSubtaskExecutor, ActionCache]:
    client = LLMClient.from_settings(scripted_llm_settings(server), usage)
    clients.append(client)
    cache = ActionCache(store)

    async def current() -> Controller:
        return controller

    loop = LLMSubtaskExecutor(
        client,
        ModelRouter(store, RouterThresholds()),
        CallContext(org_id),
        current,
        allowed_actions=["click"],
        cache=cache,
    )
    return loop, cache


async def test_pagination_costs_one_llm_decision_then_verified_hits_and_a_redesign_misses_with_a_reason(
    llm_server: ScriptedLLMServer, sandbox: SandboxServer, run_browser: RunBrowser, clients: list[LLMClient]
) -> None:
    pages = -(-len(statement_rows(ACCOUNT, START, END, sandbox.config.seed)) // PAGE_SIZE)
    assert pages == 11
    operator = ScriptedOperator({WALK_GOAL: next_page_rule()})
    llm_server.set_handler(operator)
    store, usage, log = InProcessKeyValueStore(), UsageLog(), ActionLog()
    controller = Controller(run_browser, recorder=log, screenshots=False)
    loop, cache = executor(clients, llm_server, store, controller, "org-a", usage)
    await sign_in(controller, sandbox)
    await controller.navigate(statement_url(sandbox, "v1"))
    clicks_before = len(log.clicks())

    outcome = await loop.run_goal(walk())

    assert outcome.success, outcome.error
    assert outcome.data["llm_decisions"] == 1 and operator.decisions == 1
    assert outcome.data["cache_hits"] == pages - 2 == 9
    stats = await cache.stats("org-a")
    assert stats.hits == 9 and stats.misses_by_reason == {"not_found": 1}
    assert len(usage.calls("agents.next_action")) == 1 and len(usage.hits("agents.next_action")) == 9
    turns = log.clicks()[clicks_before:]
    assert len(turns) == pages - 1 and all(r.outcome == "ok" and r.target and r.target.name == "下一页" for r in turns)
    assert f"page={pages}" in run_browser.active_tab.page.url

    configure(sandbox, layout="v2")
    try:
        await controller.navigate(statement_url(sandbox, "v2"))
        operator.rules = {WALK_GOAL: next_page_rule("后一页")}
        v2 = await loop.run_goal(walk(condition="element_absent: [link] 后一页"))
    finally:
        configure(sandbox, layout="v1")

    assert v2.success, v2.error
    assert operator.decisions == 2, "the redesigned page needs the LLM once"
    stats = await cache.stats("org-a")
    assert stats.misses_by_reason == {"not_found": 2}, "the v1 entry is not this page's: a miss with its reason"
    v2_turns = log.clicks()[clicks_before + len(turns) :]
    assert len(v2_turns) == pages - 1
    assert all(r.outcome == "ok" and r.target and r.target.name == "后一页" for r in v2_turns), "nothing wrong clicked"


async def test_another_organisation_never_hits_the_first_ones_entries(
    llm_server: ScriptedLLMServer,
    sandbox: SandboxServer,
    run_browser: RunBrowser,
    clients: list[LLMClient],
    shared_store: KeyValueStore,
) -> None:
    operator = ScriptedOperator({WALK_GOAL: next_page_rule()})
    llm_server.set_handler(operator)
    store = shared_store
    controller = Controller(run_browser, screenshots=False)
    await sign_in(controller, sandbox)
    first, first_cache = executor(clients, llm_server, store, controller, "org-a", UsageLog())
    await controller.navigate(statement_url(sandbox, "v1"))
    assert (await first.run_goal(walk())).success

    second, second_cache = executor(clients, llm_server, store, controller, "org-b", UsageLog())
    await controller.navigate(statement_url(sandbox, "v1"))
    outcome = await second.run_goal(walk())

    assert outcome.success and outcome.data["llm_decisions"] == 1
    assert operator.decisions == 2, "org-b asked the LLM itself"
    assert (await second_cache.stats("org-b")).misses_by_reason == {"not_found": 1}
    assert (await first_cache.stats("org-a")).hits == 9, "org-b's lookups never counted against org-a's entries"
    keys = await store.scan_prefix("action_cache:")
    assert {key.split(":")[1] for key in keys} == {"org-a", "org-b"}


def one_page_rule(seen: SeenPage) -> dict[str, object]:
    if "Done: click" in seen.history:
        return seen.act("complete", reason="the next page is shown")
    link = seen.find("下一页", "link")
    if link is None:
        return seen.act("fail", reason="已经是最后一页，没有下一页")
    return seen.act("click", link, reason="next page")


async def test_a_cached_decision_that_no_longer_fits_is_refused_evicted_and_counted(
    llm_server: ScriptedLLMServer, sandbox: SandboxServer, run_browser: RunBrowser, clients: list[LLMClient]
) -> None:
    operator = ScriptedOperator({TURN_GOAL: one_page_rule})
    llm_server.set_handler(operator)
    store, log = InProcessKeyValueStore(), ActionLog()
    controller = Controller(run_browser, recorder=log, screenshots=False)
    loop, cache = executor(clients, llm_server, store, controller, "org-a", UsageLog())
    await sign_in(controller, sandbox)
    await controller.navigate(statement_url(sandbox, "v1", page=5))
    turned = await loop.run_goal(walk(TURN_GOAL, "judged: the next page of 交易明细 is shown"))
    assert turned.success and turned.data["completed_by"] == "llm"
    assert "page=6" in run_browser.active_tab.page.url
    assert len(await store.scan_prefix("action_cache:org-a:")) == 1

    # The last page looks the same (same skeleton, same key), but its 下一页 is no link any more.
    await controller.navigate(statement_url(sandbox, "v1", page=11))
    clicks_before = len(log.clicks())
    outcome = await loop.run_goal(walk(TURN_GOAL, "judged: the next page of 交易明细 is shown"))

    assert not outcome.success and outcome.needs_human and outcome.error_code == "llm_gave_up"
    assert "最后一页" in (outcome.error or "")
    assert outcome.human_context["llm_raw_output"] and "fail" in outcome.human_context["llm_raw_output"]
    refused = log.clicks()[clicks_before:]
    assert [r.outcome for r in refused] == ["refused"], "the cached click was resolved, refused, never performed"
    assert "page=11" in run_browser.active_tab.page.url
    assert (await cache.stats("org-a")).misses_by_reason == {"not_found": 1, "target_not_found": 1}
    assert await store.scan_prefix("action_cache:org-a:") == [], "the stale entry was evicted"
