"""A free-form goal, end to end: "下载 2024 年第一季度的银行流水" is planned by the LLM planner and run by the
coordinator — the login as a skill, the rest by the LLM loop — against the sandbox bank in headless Chromium,
with a scripted LLM that answers from the snapshots it is sent. Wrong proposals are refused, never acted on."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from finrpa.agents.coordinator import AgentCoordinator, Backoff
from finrpa.agents.events import EventType
from finrpa.agents.llm_executor import LLMSubtaskExecutor
from finrpa.agents.llm_planner import LLMPlanner
from finrpa.agents.plan import CoordinationState, SubTaskStatus, TaskStatus
from finrpa.agents.plan_proposal import PlanningContext
from finrpa.browser import BrowserManager, Controller, RunBrowserConfig
from finrpa.cache import InProcessKeyValueStore
from finrpa.llm import ActionCache, CallContext, LLMClient, ModelRouter, RouterThresholds
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.execution import RunExecutor, RunIdentity
from finrpa.runs.repository import NewEvent
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.server import SandboxServer
from tests.fixtures.llm_server import RecordedRequest, ScriptedLLMServer, scripted_llm_settings
from tests.fixtures.runs import DictSecrets
from tests.integration.agents.conftest import configure
from tests.integration.agents.scripted_operator import ScriptedOperator, SeenPage, UsageLog

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

GOAL = "下载 2024 年第一季度的银行流水"
ACCOUNT = "1001020309000123456"
ORG = "org-goal"
SKILLS = {"LoginSkill", "FileDownloadSkill", "PaginationSkill", "TableExtractSkill"}
ACTIONS = {"click", "fill", "select", "press", "download"}


def plan_reply(request: RecordedRequest) -> dict[str, Any]:
    assert GOAL in request.last_user_text
    return {
        "steps": [
            {"step_id": "login", "goal": "登录企业网银", "skill": "LoginSkill",
             "params": {"url": "{{bank_url}}", "username": "{{username}}", "password": "{{secret:password}}"}},
            {"step_id": "open_statement", "goal": "打开账户明细查询页面", "actions": ["click"],
             "completion": {"kind": "element_visible", "role": "button", "value": "查询"}},
            {"step_id": "query", "goal": "查询账户 2024 年第一季度的明细",
             "actions": ["fill", "select", "click", "press"],
             "inputs": {"account_number": "{{account_number}}", "start_date": "2024-01-01", "end_date": "2024-03-31"},
             "completion": {"kind": "table_visible", "value": "交易明细"}},
            {"step_id": "export", "goal": "导出账户明细的CSV文件", "actions": ["download"],
             "completion": {"kind": "download"}},
        ]
    }  # fmt: skip


class QueryRule:
    """Fills the query like an operator would — after two wrong proposals that must be refused."""

    def __init__(self) -> None:
        self.wrong = [
            lambda seen: seen.act("fill", None, ref="e999", value="{{start_date}}", reason="a ref that is not there"),
            lambda seen: seen.act(
                "fill", seen.find("安全退出", "link"), value="{{start_date}}", reason="wrong element"
            ),
        ]

    def __call__(self, seen: SeenPage) -> dict[str, Any]:
        if self.wrong:
            return self.wrong.pop(0)(seen)
        start, end = seen.find("开始日期", "textbox"), seen.find("结束日期", "textbox")
        if start is not None and start.value != "2024-01-01":
            return seen.act("fill", start, value="{{start_date}}")
        if end is not None and end.value != "2024-03-31":
            return seen.act("fill", end, value="{{end_date}}")
        if seen.dialogs:
            return seen.act("press", key="Escape", reason="close the calendar")
        return seen.act("click", seen.find("查询", "button"), reason="run the query")


def operator() -> ScriptedOperator:
    return ScriptedOperator(
        {
            "打开账户明细查询页面": lambda seen: seen.act("click", seen.find("账户明细查询", "link")),
            "查询账户": QueryRule(),
            "导出账户明细": lambda seen: seen.act("download", seen.find("导出CSV", "link")),
        },
        plan=plan_reply,
    )


class MemoryJournal:
    def __init__(self) -> None:
        self.events: list[NewEvent] = []

    async def commit(
        self, events: Sequence[NewEvent], state: CoordinationState, *, error: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self.events.extend(events)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [event.payload for event in self.events if event.type == kind]


async def no_transaction(work: Any) -> Any:
    raise AssertionError("this goal's plan has no step that writes to a portal")


@dataclass
class GoalRun:
    planner: LLMPlanner
    executor: LLMSubtaskExecutor
    session: BrowserSession
    secrets: DictSecrets
    client: LLMClient


@pytest_asyncio.fixture(loop_scope="module")
async def goal_run(
    llm_server: ScriptedLLMServer, sandbox: SandboxServer, manager: BrowserManager, tmp_path: Path
) -> AsyncIterator[GoalRun]:
    configure(sandbox, layout="v1", error_rate=0.0)
    run_id = "run-goal"
    recorder = EvidenceRecorder(org_id=ORG, run_id=run_id, screenshots=None)
    config = RunBrowserConfig(run_id=run_id, downloads_dir=tmp_path / "downloads", portal_urls=[sandbox.base_url])
    session = BrowserSession(manager, config, recorder, screenshots=False)
    secrets = DictSecrets({"password": DEMO_PASSWORD})
    skills = RunExecutor(RunIdentity(run_id, ORG, None, None), session, recorder, no_transaction,
                         artifacts_dir=tmp_path, fencing_token=1, secrets=secrets)  # fmt: skip
    store = InProcessKeyValueStore()
    client = LLMClient.from_settings(scripted_llm_settings(llm_server), UsageLog())
    context = CallContext(ORG, run_id=run_id)

    async def controller() -> Controller:
        return (await session.ensure())[1]

    executor = LLMSubtaskExecutor(
        client, ModelRouter(store, RouterThresholds()), context, controller, allowed_actions=ACTIONS,
        cache=ActionCache(store), secrets=secrets, skills=skills, evidence=recorder,
    )  # fmt: skip
    yield GoalRun(LLMPlanner(client, context), executor, session, secrets, client)
    await session.close()
    await client.aclose()


async def test_the_goal_is_planned_and_run_to_a_verified_statement_download(
    goal_run: GoalRun, llm_server: ScriptedLLMServer, sandbox: SandboxServer
) -> None:
    scripted = operator()
    llm_server.set_handler(scripted)
    arguments = {"bank_url": f"{sandbox.base_url}/bank/login", "username": "corp_demo",
                 "password": "secret://password", "account_number": ACCOUNT}  # fmt: skip
    plan = await goal_run.planner.plan(
        GOAL, allowed_skills=SKILLS, allowed_actions=ACTIONS, context=PlanningContext.from_arguments(arguments)
    )
    assert [subtask.inputs["step_id"] for subtask in plan.subtasks] == ["login", "open_statement", "query", "export"]
    login = plan.subtasks[0].skill_call
    assert login is not None and login.params["password"] == "secret://password"

    journal = MemoryJournal()
    coordinator = AgentCoordinator(CoordinationState(run_id="run-goal", plan=plan), goal_run.executor, journal,
                                   planner=goal_run.planner, backoff=Backoff(base_s=0.01, max_s=0.01))  # fmt: skip
    final = await coordinator.run()

    assert final.status is TaskStatus.COMPLETED, final.last_error
    assert all(subtask.status is SubTaskStatus.SUCCESS for subtask in final.plan.subtasks)
    export = final.plan.subtasks[-1].result_data
    [download] = export["downloads"]
    rows = list(csv.DictReader(io.StringIO(Path(download["path"]).read_text(encoding="utf-8-sig"))))
    expected = statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), sandbox.config.seed)
    assert {row["流水号"] for row in rows} == {row.serial for row in expected}

    decisions = [p for p in journal.of(EventType.LLM_CALL) if p["source"] == "llm"]
    refused = [p for p in decisions if p["verdict"] == "refused"]
    assert [p["proposal"]["ref"] for p in refused] == ["e999", refused[1]["proposal"]["ref"]]
    actions = journal.of(EventType.ACTION)
    assert actions and all(p["outcome"] == "ok" for p in actions), "every action that ran was verified"
    assert not any((p["target"] or {}).get("name") == "安全退出" for p in actions), (
        "the wrong element was never touched"
    )
    assert goal_run.secrets.reads == [("password", "login password")]
    assert all(DEMO_PASSWORD not in request.text for request in llm_server.requests), "no secret reached the LLM"
    assert scripted.plans_asked == 1
