"""Free-form goals through the real run path: "下载 2024 年第一季度的银行流水" is planned by the LLM planner when the
run starts, its login runs as a skill and the rest by the LLM loop against the sandbox bank in headless
Chromium, with the event log, audit rows, vault secrets and LLM usage of any run. A scripted local LLM answers
from the snapshots it is sent; invalid answers end in NEEDS_HUMAN with the raw output for the takeover view."""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from finrpa.agents.events import EventType
from finrpa.agents.plan import SubTaskStatus, TaskStatus
from finrpa.api import ApiOptions, create_app
from finrpa.audit.schemas import AuditQuery
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.commands.runs import execute_run, start_goal_run
from finrpa.db.engine import unit_of_work
from finrpa.identity.permissions import Principal
from finrpa.identity.repository import IdentityRepository
from finrpa.llm import run_llm_usage, summarize_llm_costs
from finrpa.runs.goal_runs import GoalScope
from finrpa.runs.repository import RunRepository
from finrpa.runs.runner import RunRunner
from finrpa.runs.service import GoalRunRequest, create_goal_run, load_state, resolve_needs_human
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy import open_tenant_database
from finrpa.tenancy.context import system_context
from finrpa.vault.service import VaultService
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.llm_server import RecordedRequest, Reply, ScriptedLLMServer, scripted_llm_settings
from tests.fixtures.runs import vault_runner
from tests.integration.agents.scripted_operator import OPERATOR_MARK, PLANNER_MARK, ScriptedOperator, SeenPage
from tests.integration.api.world import World, seeded_database
from tests.integration.runs.conftest import configure

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

GOAL = "下载 2024 年第一季度的银行流水"
ACCOUNT = "1001020309000123456"
PLAN = {
    "steps": [
        {"step_id": "login", "goal": "登录企业网银", "skill": "LoginSkill",
         "params": {"url": "{{bank_url}}", "username": "{{username}}", "password": "{{secret:password}}"}},
        {"step_id": "open_statement", "goal": "打开账户明细查询页面", "actions": ["click"],
         "completion": {"kind": "element_visible", "role": "button", "value": "查询"}},
        {"step_id": "query", "goal": "查询账户 2024 年第一季度的明细", "actions": ["fill", "click", "press"],
         "inputs": {"account_number": "{{account_number}}", "start_date": "2024-01-01", "end_date": "2024-03-31"},
         "completion": {"kind": "table_visible", "value": "交易明细"}},
        {"step_id": "export", "goal": "导出账户明细的CSV文件", "actions": ["download"],
         "completion": {"kind": "download"}},
    ]
}  # fmt: skip


def query(seen: SeenPage) -> dict[str, Any]:
    start, end = seen.find("开始日期", "textbox"), seen.find("结束日期", "textbox")
    if start is not None and start.value != "2024-01-01":
        return seen.act("fill", start, value="{{start_date}}")
    if end is not None and end.value != "2024-03-31":
        return seen.act("fill", end, value="{{end_date}}")
    if seen.dialogs:
        return seen.act("press", key="Escape", reason="close the calendar")
    return seen.act("click", seen.find("查询", "button"), reason="run the query")


def plan_reply(request: RecordedRequest) -> dict[str, Any]:
    assert GOAL in request.last_user_text
    return PLAN


def operator() -> ScriptedOperator:
    return ScriptedOperator(
        {
            "打开账户明细查询页面": lambda seen: seen.act("click", seen.find("账户明细查询", "link")),
            "查询账户": query,
            "导出账户明细": lambda seen: seen.act("download", seen.find("导出CSV", "link")),
        },
        plan=plan_reply,
    )


@dataclass
class GoalHarness:
    app: App
    org_id: str
    dept_id: str
    operator_id: str | None
    runner: RunRunner


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def harness(
    request: pytest.FixtureRequest, tmp_path: Path, manager: BrowserManager, llm_server: ScriptedLLMServer
) -> AsyncIterator[GoalHarness]:
    async with fresh_database(request.param, tmp_path) as url:
        settings = scripted_llm_settings(llm_server, database_url=url, data_dir=tmp_path / "var")
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            with system_context("test: find the operator", org_id=demo.org_id):
                async with unit_of_work(app.database.sessions) as session:
                    operator_user = await IdentityRepository(session).user_by_username(demo.org_id, "operator")
            runner = vault_runner(app, settings, manager)
            try:
                yield GoalHarness(app, demo.org_id, demo.dept_id, operator_user.id if operator_user else None, runner)
            finally:
                await runner.close()


def arguments(sandbox: SandboxServer) -> dict[str, Any]:
    return {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": f"secret://{BANK_PASSWORD_SECRET}",
        "account_number": ACCOUNT,
    }


async def events_of(harness: GoalHarness, run_id: str) -> list[tuple[str, dict[str, Any]]]:
    with system_context("test: read events", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            return [(event.type, event.payload) for event in await RunRepository(session).events(run_id)]


async def create(harness: GoalHarness, sandbox: SandboxServer, scope: GoalScope | None = None) -> str:
    request = GoalRunRequest(GOAL, arguments(sandbox), scope or GoalScope.everything(), dept_id=harness.dept_id,
                             created_by=harness.operator_id)  # fmt: skip
    with system_context("test: create a goal run", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            return str((await create_goal_run(session, request)).id)


async def test_a_goal_run_from_the_cli_is_planned_run_verified_audited_and_costed(
    harness: GoalHarness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    scripted = operator()
    llm_server.set_handler(scripted)
    app = harness.app
    run_id = await start_goal_run(app, harness.org_id, GOAL, arguments(sandbox), created_by="cli",
                                  dept_id=harness.dept_id)  # fmt: skip
    outcome = await execute_run(app, harness.org_id, run_id, screenshots=False)

    assert outcome["status"] == "COMPLETED", outcome
    assert [step["step"] for step in outcome["steps"]] == ["plan", "login", "open_statement", "query", "export"]
    [csv_path] = outcome["artifacts"]
    rows = list(csv.DictReader(io.StringIO(Path(csv_path).read_text(encoding="utf-8-sig"))))
    expected = statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), sandbox.config.seed)
    assert {row["流水号"] for row in rows} == {row.serial for row in expected}

    events = await events_of(harness, run_id)
    kinds = [kind for kind, _ in events]
    assert kinds[0] == EventType.RUN_CREATED and EventType.PLANNED in kinds and kinds[-1] == EventType.RUN_FINISHED
    [planned] = [payload for kind, payload in events if kind == EventType.PLANNED]
    assert [s["inputs"]["step_id"] for s in planned["plan"]["subtasks"]] == [
        "plan", "login", "open_statement", "query", "export"
    ]  # fmt: skip
    actions = [payload for kind, payload in events if kind == EventType.ACTION]
    llm_driven = {payload["subtask_id"] for kind, payload in events if kind == EventType.LLM_CALL}
    assert len(llm_driven) == 3, "the three browser goals were decided by the LLM loop"
    assert actions and all(payload["outcome"] == "ok" for payload in actions), "every action that ran was verified"
    assert {payload["subtask_id"] for payload in actions} >= llm_driven

    with system_context("test: audit and costs", org_id=harness.org_id):
        async with unit_of_work(app.database.sessions) as session:
            audit = AuditService.from_settings(app.settings)
            page = await audit.search(session, harness.org_id, AuditQuery(task_id=run_id, limit=500))
            usage = await run_llm_usage(session, harness.org_id, run_id)
            costs = await summarize_llm_costs(session, harness.org_id, group_by=("department", "tier"))
    assert len(page.items) >= len(actions), "every browser action has its audit row"
    [plan_row] = [item for item in page.items if item.action_type == "PLAN_CREATED"]
    assert plan_row.details["plan_step_count"] >= 2 and plan_row.details["plan_steps"][0]["subtask_id"]
    prompts = {row.prompt_id for row in usage.rows}
    assert prompts == {"agents.plan_goal", "agents.next_action"}
    assert usage.llm_calls == len(llm_server.requests) and usage.tokens > 0
    assert all(row.prompt_version >= 1 and row.tier in ("light", "standard", "heavy") for row in usage.rows)
    assert outcome["llm_usage"]["llm_calls"] == usage.llm_calls
    assert sum(row.calls for row in costs if row.department == harness.dept_id) == sum(r.calls for r in usage.rows)

    assert scripted.plans_asked == 1
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests), "no secret reached the LLM"


async def test_invalid_llm_output_three_times_needs_a_person_with_the_raw_output(
    harness: GoalHarness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    scripted = operator()

    def handler(request: RecordedRequest) -> Reply | dict[str, Any] | None:
        if OPERATOR_MARK in request.system and "打开账户明细查询页面" in request.text:
            return Reply.text("I would click the statement link, I think.")
        reply = scripted(request)
        return reply

    llm_server.set_handler(handler)
    run_id = await create(harness, sandbox)
    final = await harness.runner.execute(run_id, harness.org_id)

    assert final.status is TaskStatus.NEEDS_HUMAN
    stuck = final.plan.subtask(final.current or "")
    assert stuck.inputs["step_id"] == "open_statement"
    assert final.plan.subtasks[1].status is SubTaskStatus.SUCCESS, "the login skill ran before"
    [needs_human] = [payload for kind, payload in await events_of(harness, run_id) if kind == EventType.NEEDS_HUMAN]
    assert needs_human["llm_raw_output"] == "I would click the statement link, I think."
    assert len([error for error in needs_human["llm_errors"] if "invalid_output" in error]) == 3
    assert needs_human["error_code"] == "llm_no_usable_answer"
    operator_calls = [r for r in llm_server.requests if OPERATOR_MARK in r.system]
    assert len(operator_calls) == 3, "one call, three attempts, then a person"
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests)


async def test_a_plan_the_llm_cannot_give_needs_a_person_and_retry_plans_again(
    harness: GoalHarness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    forbidden = {"steps": [{"step_id": "pay", "goal": "付款", "skill": "FormFillSkill", "params": {}}]}
    llm_server.set_handler(lambda request: forbidden if PLANNER_MARK in request.system else None)
    read_only = GoalScope(frozenset({"LoginSkill"}), frozenset({"click", "fill", "press", "download"}))
    run_id = await create(harness, sandbox, read_only)
    final = await harness.runner.execute(run_id, harness.org_id)

    assert final.status is TaskStatus.NEEDS_HUMAN
    assert final.plan.subtask(final.current or "").inputs["step_id"] == "plan"
    [needs_human] = [payload for kind, payload in await events_of(harness, run_id) if kind == EventType.NEEDS_HUMAN]
    assert "FormFillSkill" in needs_human["llm_raw_output"]
    assert any("not allowed" in error for error in needs_human["llm_errors"])

    llm_server.set_handler(operator())
    with system_context("test: a person retries", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            await resolve_needs_human(session, run_id, "retry", user_id="tester", audit=harness.runner.audit)
    final = await harness.runner.execute(run_id, harness.org_id)
    assert final.status is TaskStatus.COMPLETED, final.last_error
    with system_context("test: state", org_id=harness.org_id):
        async with unit_of_work(harness.app.database.sessions) as session:
            state = await load_state(session, run_id)
    assert [s.inputs["step_id"] for s in state.plan.subtasks] == ["plan", "login", "open_statement", "query", "export"]


async def test_a_goal_posted_to_the_api_is_planned_and_run_by_the_embedded_worker(
    sandbox: SandboxServer, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    llm_server.set_handler(operator())
    async with seeded_database("sqlite", tmp_path) as (plain, orgs):
        settings = scripted_llm_settings(llm_server, env="development", database_url=plain.database_url,
                                         data_dir=plain.data_dir)  # fmt: skip
        org = orgs["a"]
        database = open_tenant_database(settings.database_url)
        try:
            with system_context("test: the bank password in the vault", org_id=org.id):
                async with unit_of_work(database.sessions) as session:
                    await VaultService(session, settings).put_secret(
                        Principal.platform(org.id, "test"), org.id, BANK_PASSWORD_SECRET, DEMO_PASSWORD,
                        dept_id=org.departments["ops"],
                    )  # fmt: skip
        finally:
            await database.dispose()
        app = create_app(settings, ApiOptions(worker=True, dispatcher=False, auto_migrate=False))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
                world = World(app, client, settings, "sqlite", orgs)
                body = {"goal": GOAL, "parameters": arguments(sandbox)}
                created = await world.call("POST", "/api/v1/tasks", "a", "operator", json=body)
                assert created.status_code == 201, created.text
                task = created.json()
                assert task["template_id"] is None and task["goal"] == GOAL
                assert [s["step_id"] for s in task["plan"]["subtasks"]] == ["plan"], "planned when the run starts"
                detail = await wait_until_settled(world, task["id"])
                assert detail["status"] == "COMPLETED", detail["last_error"]
                steps = [s["step_id"] for s in detail["plan"]["subtasks"]]
                assert steps == ["plan", "login", "open_statement", "query", "export"]
                events = (await world.call("GET", f"/api/v1/tasks/{task['id']}/events", "a", "viewer")).json()
                actions = [e["payload"] for e in events["items"] if e["type"] == EventType.ACTION]
                assert actions and all(payload["outcome"] == "ok" for payload in actions)
                costs = await world.call("GET", "/api/v1/metrics/costs?group_by=department&group_by=tier", "a", "admin")
                assert costs.status_code == 200, costs.text
                ops = [row for row in costs.json() if row["department"] == org.departments["ops"]]
                assert ops and sum(row["calls"] for row in ops) >= 4, "the run's calls are the department's"
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests)


async def wait_until_settled(world: World, task_id: str, timeout_s: float = 120.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        detail: dict[str, Any] = (await world.call("GET", f"/api/v1/tasks/{task_id}", "a", "operator")).json()
        if detail["status"] not in ("PENDING", "RUNNING") or asyncio.get_running_loop().time() > deadline:
            return detail
        await asyncio.sleep(0.5)
