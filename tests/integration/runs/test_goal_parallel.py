"""A goal run whose LLM plan has independent branches runs them at the same time, each in its own browser
context, through the same lanes as template plans: after one login, the statements of the demo company's three
accounts are queried and downloaded in three branches, then merged. Headless Chromium against the sandbox bank,
a scripted local LLM, SQLite and PostgreSQL.

The branches start in one commit and overlap in time (read from the recorded action timestamps); the run completes
with a contiguous event log. A fourth branch, a browser goal, runs the LLM loop in its own lane under the same
gate. A branch that fails and replans leaves the completed branches on their own pages: the replanned downloads
continue in the browser context of their own account's query. A plan whose dependencies name an unknown step or
close a cycle is refused by code and, after the corrected plan is refused too, goes to a person. On durable
workers, the worker holding the run is killed while the branches run; another one finishes it the same way.
"""

from __future__ import annotations

import asyncio
import csv
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from finrpa.agents.events import EventType
from finrpa.agents.plan import SubTaskStatus, TaskStatus
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.db.engine import unit_of_work
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.goal_runs import GoalScope
from finrpa.runs.lanes import LANE_INPUT, MAIN_LANE
from finrpa.runs.models import Run, RunEvent
from finrpa.runs.repository import RunRepository
from finrpa.runs.runner import RunRunner
from finrpa.runs.service import GoalRunRequest, create_goal_run
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from tests.chaos.harness import Chaos, WorkerPool, check_run, wait_until_listening
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.llm_server import RecordedRequest, ScriptedLLMServer, llm_worker_env, scripted_llm_settings
from tests.fixtures.runs import vault_runner
from tests.integration.agents.scripted_operator import PLANNER_MARK, ScriptedOperator
from tests.integration.runs.conftest import configure

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

GOAL = "下载三个账户 2024 年 1 至 2 月的银行流水并合并成一个文件"
ACCOUNTS = {"a": "1001020309000123456", "b": "1001020309000765432", "c": "1001020314000555888"}
NOT_OURS = "6222020000000000001"
LOGIN = {"step_id": "login", "goal": "登录企业网银", "skill": "LoginSkill",
         "params": {"url": "{{bank_url}}", "username": "{{username}}", "password": "{{secret:password}}"}}  # fmt: skip


def query(name: str, account: str = "", **extra: Any) -> dict[str, Any]:
    fields = {"账号": account or "{{account_" + name + "}}", "开始日期": "2024-01-01", "结束日期": "2024-02-29"}
    params = {"navigate_to": ["账户明细查询"], "fields": fields, "submit": "查询"}
    return {"step_id": f"query_{name}", "goal": f"查询账户 {name} 的明细", "skill": "FormFillSkill",
            "params": params, "depends_on": ["login"], **extra}  # fmt: skip


def export(name: str, after: str = "") -> dict[str, Any]:
    params = {"trigger": "导出CSV", "path": f"stmt-{name}.csv", "expected_type": "csv"}
    return {"step_id": f"export_{name}", "goal": f"导出账户 {name} 的明细", "skill": "FileDownloadSkill",
            "params": params, "depends_on": [after or f"query_{name}"]}  # fmt: skip


MERGE = {"step_id": "merge", "goal": "合并三个账户的流水", "skill": "CsvMergeSkill",
         "params": {"inputs": [f"stmt-{name}.csv" for name in ACCOUNTS], "output_path": "statements.csv"},
         "depends_on": [f"export_{name}" for name in ACCOUNTS]}  # fmt: skip
ELSEWHERE = {"step_id": "elsewhere", "goal": "把流水发到外部网站", "actions": ["navigate"], "depends_on": ["login"],
             "inputs": {"elsewhere": "http://files.example.test/upload"}, "failure_strategy": "SKIP", "max_retries": 0,
             "completion": {"kind": "url_contains", "value": "example.test"}}  # fmt: skip
PLAN = {"steps": [LOGIN, *(query(name) for name in ACCOUNTS), *(export(name) for name in ACCOUNTS), MERGE]}


@dataclass
class Harness:
    app: App
    org_id: str
    dept_id: str
    runner: RunRunner

    async def events(self, run_id: str) -> list[RunEvent]:
        with system_context("test: read events", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                return list(await RunRepository(session).events(run_id))

    async def create(self, sandbox: SandboxServer) -> str:
        return await create_goal(self.app, self.org_id, self.dept_id, sandbox)

    def folder(self, run_id: str) -> Path:
        return Path(self.app.settings.data_dir) / "runs" / run_id


async def create_goal(app: App, org_id: str, dept_id: str, sandbox: SandboxServer) -> str:
    arguments = {
        "bank_url": f"{sandbox.base_url}/bank/login",
        "username": "corp_demo",
        "password": f"secret://{BANK_PASSWORD_SECRET}",
        **{f"account_{name}": number for name, number in ACCOUNTS.items()},
    }
    request = GoalRunRequest(GOAL, arguments, GoalScope.everything(), dept_id=dept_id, created_by="tester")
    with system_context("test: create a goal run", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            return str((await create_goal_run(session, request)).id)


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def harness(
    request: pytest.FixtureRequest, tmp_path: Path, manager: BrowserManager, llm_server: ScriptedLLMServer
) -> AsyncIterator[Harness]:
    async with fresh_database(request.param, tmp_path) as url:
        settings = scripted_llm_settings(llm_server, database_url=url, data_dir=tmp_path / "var")
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            runner = vault_runner(app, settings, manager)
            try:
                yield Harness(app, demo.org_id, demo.dept_id, runner)
            finally:
                await runner.close()


def planner(first: dict[str, Any], replan: dict[str, Any] | None = None) -> ScriptedOperator:
    def plan(request: RecordedRequest) -> dict[str, Any]:
        if "Completed steps (kept)" in request.last_user_text:
            assert replan is not None, "no replan expected"
            return replan
        return first

    return ScriptedOperator({"把流水发到外部网站": lambda seen: seen.act("navigate", value="{{elsewhere}}")}, plan=plan)


def step_ids(events: Sequence[RunEvent], kind: str) -> dict[str, str]:
    """subtask id → step id, from the plan of the last ``kind`` (planned / replanned) event."""
    [*_, planned] = [e.payload for e in events if e.type == kind]
    return {s["subtask_id"]: s["inputs"]["step_id"] for s in planned["plan"]["subtasks"]}


def interval(events: Sequence[RunEvent], subtask_id: str) -> tuple[datetime, datetime]:
    actions = [e.payload for e in events if e.type == EventType.ACTION and e.payload["subtask_id"] == subtask_id]
    assert actions, f"subtask {subtask_id} recorded no browser action"
    starts = [datetime.fromisoformat(a["started_at"]) for a in actions]
    ends = [start + timedelta(milliseconds=a["duration_ms"]) for start, a in zip(starts, actions, strict=True)]
    return min(starts), max(ends)


def check_merged(folder: Path) -> None:
    with (folder / "statements.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["source"] for row in rows} == {f"stmt-{name}.csv" for name in ACCOUNTS}
    downloads = [(folder / f"stmt-{name}.csv").read_bytes() for name in ACCOUNTS]
    assert len(set(downloads)) == 3, "each branch downloaded its own account's statement"
    lines = sum(len(list(csv.DictReader(content.decode("utf-8-sig").splitlines()))) for content in downloads)
    assert len(rows) == lines


async def test_independent_branches_of_a_goal_plan_run_at_once_in_their_own_browser_contexts(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    steps = PLAN["steps"]
    llm_server.set_handler(planner({"steps": [*steps[:4], ELSEWHERE, *steps[4:]]}))
    run_id = await harness.create(sandbox)
    final = await harness.runner.execute(run_id, harness.org_id)

    events = await harness.events(run_id)
    check_run(final.status.value, events)
    names = step_ids(events, EventType.PLANNED)
    [planned] = [e.payload["plan"] for e in events if e.type == EventType.PLANNED]
    lanes = {s["inputs"]["step_id"]: s["inputs"][LANE_INPUT] for s in planned["subtasks"]}
    assert lanes["plan"] == lanes["login"] == lanes["query_a"] == lanes["export_a"] == MAIN_LANE
    assert len({lanes[f"query_{name}"] for name in ACCOUNTS}) == 3, "three branches, three browser contexts"
    assert all(lanes[f"export_{name}"] == lanes[f"query_{name}"] for name in ACCOUNTS), "a branch keeps its lane"

    queries = [subtask_id for subtask_id, step in names.items() if step.startswith("query_")]
    started = [e.seq for e in events if e.type == EventType.SUBTASK_STARTED and e.payload["subtask_id"] in queries]
    assert started == list(range(started[0], started[0] + 3)), "the three branches start in one commit"
    succeeded = [
        names[e.payload["subtask_id"]]
        for e in events
        if e.type == EventType.SUBTASK_SUCCEEDED and names[e.payload["subtask_id"]].startswith("query_")
    ]
    assert succeeded == ["query_a", "query_b", "query_c"], "outcomes are committed in plan order"
    intervals = sorted(interval(events, subtask_id) for subtask_id in queries)
    assert intervals[1][0] < intervals[0][1], "the branches ran at the same time, not one after another"
    check_merged(harness.folder(run_id))
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests), "no secret reached the LLM"

    # The fourth branch is the LLM loop in a lane of its own, under the same gate: leaving the portal is refused.
    [elsewhere] = [subtask_id for subtask_id, step in names.items() if step == "elsewhere"]
    assert lanes["elsewhere"] not in {lanes[f"query_{name}"] for name in ACCOUNTS}
    assert final.plan.subtask(elsewhere).status is SubTaskStatus.SKIPPED
    assert any(e.type == EventType.LLM_CALL and e.payload.get("subtask_id") == elsewhere for e in events)
    [refusal] = [
        e.payload
        for e in events
        if e.type == EventType.POLICY_DECISION
        and e.payload.get("kind") == "capability_check"
        and e.payload["subtask_id"] == elsewhere
    ]
    assert refusal["host"] == "files.example.test" and refusal["reason_codes"] == ["capability_denied"]
    assert not [e for e in events if e.type == EventType.ACTION and "example.test" in str(e.payload)]


async def test_a_failed_branch_replans_and_the_other_branches_continue_on_their_own_pages(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    """query_a (the branch that continues the login's browser context) asks for an account the company does not
    have and replans; query_b and query_c are done, so the replan only downloads theirs — in their own contexts,
    which still show their own accounts' results — and queries account a again."""
    configure(sandbox, layout="v1", error_rate=0.0)
    failing = query("a", NOT_OURS, failure_strategy="REPLAN", max_retries=0)
    first = {"steps": [LOGIN, failing, query("b"), query("c"), *(export(name) for name in ACCOUNTS), MERGE]}
    rest = {"steps": [query("a", step_id="query_a_again"), export("a", after="query_a_again"),
                      export("b"), export("c"), MERGE]}  # fmt: skip
    scripted = planner(first, rest)
    llm_server.set_handler(scripted)
    run_id = await harness.create(sandbox)
    final = await harness.runner.execute(run_id, harness.org_id)

    events = await harness.events(run_id)
    check_run(final.status.value, events)
    assert final.replan_count == 1 and scripted.plans_asked == 2
    names = step_ids(events, EventType.REPLANNED)
    [failed] = [e.payload for e in events if e.type == EventType.SUBTASK_FAILED]
    assert failed["subtask_id"] not in names, "the failed query is replaced"
    [replanned] = [e.payload["plan"] for e in events if e.type == EventType.REPLANNED]
    lanes = {s["inputs"]["step_id"]: s["inputs"][LANE_INPUT] for s in replanned["subtasks"]}
    assert lanes["query_b"] != MAIN_LANE, "a completed branch keeps its lane when the first branch is dropped"
    assert lanes["export_b"] == lanes["query_b"] and lanes["export_c"] == lanes["query_c"]
    assert lanes["query_a_again"] == MAIN_LANE
    check_merged(harness.folder(run_id))


async def test_a_plan_whose_dependencies_are_no_dag_needs_a_person_with_the_reason(
    harness: Harness, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    cycle = {"steps": [LOGIN, export("a", after="merge"), dict(MERGE, depends_on=["export_a"])]}
    unknown = {"steps": [LOGIN, export("a", after="query_x")]}
    answers = [cycle, unknown]
    llm_server.set_handler(lambda request: answers.pop(0) if PLANNER_MARK in request.system else None)
    run_id = await harness.create(sandbox)
    final = await harness.runner.execute(run_id, harness.org_id)

    assert final.status is TaskStatus.NEEDS_HUMAN
    assert final.plan.subtask(final.current or "").inputs["step_id"] == "plan"
    [needs_human] = [e.payload for e in await harness.events(run_id) if e.type == EventType.NEEDS_HUMAN]
    assert needs_human["error_code"] == "plan_failed"
    assert any("'query_x'" in error for error in needs_human["llm_errors"]), needs_human
    asked = [r for r in llm_server.requests if PLANNER_MARK in r.system]
    assert len(asked) == 2, "one correction, then a person"
    assert "'export_a' depends on 'merge'" in asked[1].text, "the cycle was sent back for a correction"


# -- on durable workers, killed while the branches run ------------------------------------------------------------
@pytest.mark.parametrize("backend", backends())
async def test_a_worker_killed_while_goal_branches_run_is_replaced_and_the_run_finishes_the_same_way(
    backend: str, tmp_path: Path, sandbox: SandboxServer, llm_server: ScriptedLLMServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    scripted = planner(PLAN)
    llm_server.set_handler(scripted)
    async with fresh_database(backend, tmp_path) as url:
        data = tmp_path / "var"
        settings = scripted_llm_settings(llm_server, database_url=url, data_dir=data)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            client = RunQueueClient(settings)
            # A worker is declared dead after 20 s without a heartbeat: a loaded machine must not stop a live one.
            pool = WorkerPool(
                llm_worker_env(llm_server, url, data), prefix="gp", log_dir=tmp_path / "workers", dead_after_s=20.0
            )
            chaos = Chaos(app, demo.org_id, demo.dept_id, client, pool, sandbox.base_url)
            try:
                await wait_until_listening(app, pool)
                run_id = await create_goal(app, demo.org_id, demo.dept_id, sandbox)
                await client.enqueue(run_id, demo.org_id)
                run, events = await until_downloads_start(chaos, run_id)
                assert run.status not in ("COMPLETED", "FAILED"), "the kill must land while the branches run"
                holder = [e.payload["worker_id"] for e in events if e.type == "claimed"][-1]
                pool.kill(holder)
                status = await chaos.wait_final(run_id, timeout_s=240)
                _, events, _ = await chaos.read(run_id)
            finally:
                pool.stop()
                client.close()
    check_run(status, events)
    claims = [e.payload["worker_id"] for e in events if e.type == "claimed"]
    assert claims[-1] != holder, "another worker finished the run"
    assert scripted.plans_asked == 1, "the committed plan is not asked for again"
    names = step_ids(events, EventType.PLANNED)
    queries = [subtask_id for subtask_id, step in names.items() if step.startswith("query_")]
    started = [e.seq for e in events if e.type == EventType.SUBTASK_STARTED and e.payload["subtask_id"] in queries]
    assert started == list(range(started[0], started[0] + 3)), "the three branches start in one commit"
    check_merged(data / "runs" / run_id)


async def until_downloads_start(chaos: Chaos, run_id: str, timeout_s: float = 200) -> tuple[Run, list[RunEvent]]:
    """The run and its events once a download branch has started (or the run ended)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        run, events, _ = await chaos.read(run_id)
        planned = [e for e in events if e.type == EventType.PLANNED]
        exports = (
            {k for k, step in step_ids(events, EventType.PLANNED).items() if step.startswith("export_")}
            if planned
            else set()
        )
        if run.status in ("COMPLETED", "FAILED") or any(
            e.type == EventType.SUBTASK_STARTED and e.payload["subtask_id"] in exports for e in events
        ):
            return run, events
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} never started its downloads")
