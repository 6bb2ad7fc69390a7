"""The LLM loop's safety and degradation against the sandbox bank (headless Chromium, scripted LLM): every LLM
fault ends in retry-then-success or NEEDS_HUMAN with the raw output and errors; a step budget bounds it;
secrets are typed from placeholders, never sent or cached; the router promotes a page that keeps failing on
the light tier; without an LLM the step says so."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from finrpa.agents.llm_actions import ActionClearance, ActionRequest
from finrpa.agents.llm_executor import LLMSubtaskExecutor, LoopOptions
from finrpa.agents.plan import SubTask
from finrpa.browser import BrowserManager, Controller, RunBrowserConfig
from finrpa.cache import InProcessKeyValueStore, KeyValueStore
from finrpa.config import Settings
from finrpa.llm import ActionCache, CallContext, LLMClient, ModelRouter, RouterThresholds
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from tests.fixtures.llm_server import MODELS, RecordedRequest, Reply, ScriptedLLMServer, scripted_llm_settings
from tests.fixtures.runs import DictSecrets
from tests.integration.agents.conftest import configure, sign_in
from tests.integration.agents.scripted_operator import ScriptedOperator, SeenPage, UsageLog

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

OPEN_GOAL = "打开账户明细查询页面"
OPEN = SubTask(subtask_id="open", index=0, goal=OPEN_GOAL, completion_condition="element_visible: [button] 查询",
               inputs={"allowed_actions": ["click"], "max_steps": 4})  # fmt: skip
ORG = "org-loop"


def open_statement(seen: SeenPage) -> dict[str, Any]:
    return seen.act("click", seen.find("账户明细查询", "link"), reason="the statement query is in the menu")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def controller(
    manager: BrowserManager, sandbox: SandboxServer, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Controller]:
    """One signed-in browser context for the module (each test starts from a page it navigates to)."""
    configure(sandbox, layout="v1", error_rate=0.0)
    folder = tmp_path_factory.mktemp("downloads")
    run = await manager.new_run(RunBrowserConfig(run_id="loop", downloads_dir=folder, portal_urls=[sandbox.base_url]))
    ctl = Controller(run, screenshots=False)
    await sign_in(ctl, sandbox)
    yield ctl
    await run.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def store() -> KeyValueStore:
    return InProcessKeyValueStore()


class Loops:
    """Builds executors on the scripted server and closes their clients."""

    def __init__(self, server: ScriptedLLMServer, controller: Controller, store: KeyValueStore) -> None:
        self.server, self.controller, self.store = server, controller, store
        self.clients: list[LLMClient] = []
        self.usage = UsageLog()

    def make(
        self, *, settings: Settings | None = None, store: KeyValueStore | None = None, **options: Any
    ) -> LLMSubtaskExecutor:
        client = LLMClient.from_settings(settings or scripted_llm_settings(self.server, llm_max_attempts=2), self.usage)
        self.clients.append(client)

        async def current() -> Controller:
            return self.controller

        options.setdefault("allowed_actions", ["click", "fill"])
        router = ModelRouter(store or self.store, RouterThresholds())
        return LLMSubtaskExecutor(client, router, CallContext(ORG), current, **options)


@pytest_asyncio.fixture(loop_scope="module")
async def loops(llm_server: ScriptedLLMServer, controller: Controller, store: KeyValueStore) -> AsyncIterator[Loops]:
    made = Loops(llm_server, controller, store)
    yield made
    for client in made.clients:
        await client.aclose()


async def at_overview(controller: Controller, sandbox: SandboxServer) -> None:
    await controller.navigate(f"{sandbox.base_url}/bank/")


FAULTS = {
    "invalid_json": Reply.invalid_json(),
    "schema_violation": Reply.json({"action": "teleport", "snapshot_id": "s1"}),
    "timeout": Reply.timeout(3.0),
    "rate_limited": Reply.rate_limited(0),
    "server_error": Reply.server_error(500),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_an_llm_fault_is_retried_and_the_step_still_completes(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer, fault: str
) -> None:
    await at_overview(controller, sandbox)
    llm_server.enqueue(FAULTS[fault])
    llm_server.set_handler(ScriptedOperator({OPEN_GOAL: open_statement}))

    outcome = await loops.make().run_goal(OPEN)

    assert outcome.success, outcome.error
    assert outcome.data["llm_decisions"] == 1 and outcome.data["completed_by"] == "code"
    assert [event.payload["attempts"] for event in outcome.events if event.type == "llm_call"] == [2]


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_an_llm_fault_that_persists_needs_a_person_with_the_raw_output_and_errors(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer, fault: str
) -> None:
    await at_overview(controller, sandbox)
    llm_server.enqueue(FAULTS[fault], FAULTS[fault])

    outcome = await loops.make().run_goal(OPEN)

    assert not outcome.success and outcome.needs_human and outcome.error_code == "llm_no_usable_answer"
    context = outcome.human_context
    assert len(context["llm_errors"]) == 2 and context["url"].endswith("/bank/")
    if fault in ("invalid_json", "schema_violation"):
        assert context["llm_raw_output"], "what the model said is kept for the person"
    assert controller.run.active_tab.page.url.endswith("/bank/"), "nothing was done"


async def test_the_loop_stops_after_its_step_budget_with_every_refusal_kept(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer
) -> None:
    await at_overview(controller, sandbox)
    scripted = ScriptedOperator({OPEN_GOAL: lambda seen: seen.act("fill", seen.find("账户明细查询", "link"),
                                                                   value="2024-01-01")})  # fmt: skip
    llm_server.set_handler(scripted)

    outcome = await loops.make(options=LoopOptions(max_steps=3)).run_goal(OPEN.model_copy(update={"inputs": {
        "allowed_actions": ["click", "fill"], "max_steps": 3}}))  # fmt: skip

    assert outcome.needs_human and outcome.error_code == "llm_step_budget_exhausted"
    assert scripted.decisions == 3 and len(outcome.human_context["llm_errors"]) == 3
    assert "not one of this step's inputs" in outcome.human_context["llm_errors"][0]
    assert len(outcome.human_context["llm_raw_outputs"]) == 3
    assert controller.run.active_tab.page.url.endswith("/bank/")


LOGIN_GOAL = "登录企业网银"
LOGIN = SubTask(subtask_id="login", index=0, goal=LOGIN_GOAL, completion_condition="text_visible: 账户总览",
                inputs={"values": {"username": "corp_demo"}, "secrets": {"password": "secret://bank"},
                        "allowed_actions": ["fill", "click"]})  # fmt: skip


def log_in(seen: SeenPage) -> dict[str, Any]:
    user, password = seen.find("用户名", "textbox"), seen.find("密码", "textbox")
    if user is not None and user.value != "corp_demo":
        return seen.act("fill", user, value="{{username}}")
    if password is not None and not password.value:
        return seen.act("fill", password, value="{{secret:password}}")
    return seen.act("click", seen.find("登录", "button"))


async def test_secrets_are_typed_from_placeholders_never_sent_to_the_llm_nor_cached(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer, store: KeyValueStore
) -> None:
    await controller.navigate(f"{sandbox.base_url}/bank/logout")
    await controller.navigate(f"{sandbox.base_url}/bank/login")
    scripted = ScriptedOperator({LOGIN_GOAL: log_in})
    llm_server.set_handler(scripted)
    vault = DictSecrets({"bank": DEMO_PASSWORD})
    cache = ActionCache(store)
    login = loops.make(cache=cache, secrets=vault, allowed_actions=["fill", "click"])

    outcome = await login.run_goal(LOGIN)

    assert outcome.success, outcome.error
    assert scripted.decisions == 3 and vault.reads == [("bank", "typed for: 登录企业网银")]
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests)
    [key] = await store.scan_prefix(f"action_cache:{ORG}:")
    stored = await store.get(key)
    assert stored is not None and "{{secret:password}}" in stored and DEMO_PASSWORD not in stored

    await controller.navigate(f"{sandbox.base_url}/bank/logout")
    await controller.navigate(f"{sandbox.base_url}/bank/login")
    again = await login.run_goal(LOGIN)
    assert again.success and again.data["cache_hits"] == 1 and again.data["llm_decisions"] == 0
    assert scripted.decisions == 3, "the second sign-in came from the cache, verified on the live page"


async def test_a_page_that_keeps_failing_on_the_light_tier_is_promoted(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer
) -> None:
    operator = ScriptedOperator({OPEN_GOAL: open_statement})

    def weak_light_model(request: RecordedRequest) -> Any:
        return Reply.invalid_json() if request.model == MODELS["light"] else operator(request)

    llm_server.set_handler(weak_light_model)
    settings, router_memory = scripted_llm_settings(llm_server, llm_max_attempts=1), InProcessKeyValueStore()
    for _ in range(RouterThresholds().promote_after_failures):
        await at_overview(controller, sandbox)
        failed = await loops.make(settings=settings, store=router_memory).run_goal(OPEN)
        assert failed.needs_human
    await at_overview(controller, sandbox)
    outcome = await loops.make(settings=settings, store=router_memory).run_goal(OPEN)

    assert outcome.success, outcome.error
    assert [request.model for request in llm_server.requests] == [MODELS["light"]] * 3 + [MODELS["standard"]]
    [call] = [event.payload for event in outcome.events if event.type == "llm_call"]
    assert call["promoted"] and call["complexity"] == "simple" and call["tier"] == "standard"


async def test_without_an_llm_a_free_form_step_needs_a_person_and_says_why(
    loops: Loops, controller: Controller, sandbox: SandboxServer
) -> None:
    await at_overview(controller, sandbox)

    outcome = await loops.make(settings=Settings()).run_goal(OPEN)

    assert outcome.needs_human and outcome.error_code == "llm_not_configured"
    assert outcome.error and "free-form goals" in outcome.error


async def test_a_secret_step_without_the_vault_needs_a_person_at_once(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer
) -> None:
    await controller.navigate(f"{sandbox.base_url}/bank/logout")
    await controller.navigate(f"{sandbox.base_url}/bank/login")
    scripted = ScriptedOperator({LOGIN_GOAL: log_in})
    llm_server.set_handler(scripted)

    outcome = await loops.make(allowed_actions=["fill", "click"]).run_goal(LOGIN)

    assert outcome.needs_human and outcome.error_code == "vault_unavailable"
    assert outcome.error and "credential vault" in outcome.error
    assert scripted.decisions == 2, "the username was typed, the password step stopped at once"
    await sign_in(controller, sandbox)


class RefuseLinks:
    """A policy gate that allows nothing but buttons."""

    def __init__(self) -> None:
        self.reviewed: list[str] = []
        self.settled = 0

    async def review(self, request: ActionRequest) -> ActionClearance:
        fingerprint = request.planned.fingerprint
        role = fingerprint.role if fingerprint is not None else ""
        self.reviewed.append(role)
        if role == "button":
            return ActionClearance(proceed=True)
        return ActionClearance(proceed=False, code="policy_denied", message="policy: only buttons may be clicked here")

    async def settle(self, clearance: ActionClearance, *, ok: bool, may_have_acted: bool, detail: str) -> list[Any]:
        self.settled += 1
        return []


async def test_a_gate_refusal_ends_the_subtask_with_its_reason_and_nothing_is_clicked(
    llm_server: ScriptedLLMServer, loops: Loops, controller: Controller, sandbox: SandboxServer
) -> None:
    await at_overview(controller, sandbox)
    scripted = ScriptedOperator({OPEN_GOAL: open_statement})
    llm_server.set_handler(scripted)
    gate = RefuseLinks()

    outcome = await loops.make(gate=gate).run_goal(OPEN.model_copy(update={"inputs": {
        "allowed_actions": ["click"], "max_steps": 2}}))  # fmt: skip

    # A refusal is final for the subtask (never retried as is): the run goes on per its failure strategy.
    assert not outcome.success and not outcome.retryable and outcome.error_code == "policy_denied"
    assert "only buttons may be clicked" in (outcome.error or "")
    assert gate.reviewed == ["link"] and gate.settled == 0, "refused before acting: nothing to settle"
    assert controller.run.active_tab.page.url.endswith("/bank/")
