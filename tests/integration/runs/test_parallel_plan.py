"""Parallel plan branches on durable workers with real browsers: after one login, the statements of the demo
company's three accounts are queried and downloaded in three branches at once, each in its own browser context,
then merged into one CSV. SQLite and PostgreSQL; `finrpa worker` processes against the sandbox.

Also: the worker holding the run is killed while the branches run; another worker finishes it, replaying the
recorded steps in the same order (a step-order mismatch would fail the workflow), repeating no committed subtask.
"""

from __future__ import annotations

import asyncio
import csv
import os
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from finrpa.agents.events import EventType
from finrpa.agents.plan import SkillCall, SubTask, TaskPlan, TaskStatus, stable_subtask_id
from finrpa.agents.planner import compile_template
from finrpa.bootstrap import open_app
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.lanes import browser_lanes
from finrpa.runs.models import Run, RunEvent
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.workflows.binding import bind_arguments
from finrpa.workflows.loader import get_template
from tests.chaos.harness import Chaos, WorkerPool, check_run, wait_until_listening
from tests.fixtures.databases import backends, fresh_database

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ACCOUNTS = ("1001020309000123456", "1001020309000765432", "1001020314000555888")


def three_accounts_plan(base_url: str) -> tuple[TaskPlan, dict[str, Any]]:
    """login → (query → export) for each account, in parallel → merge the three CSVs."""
    template = get_template("bank_statement_download")
    arguments = {
        "bank_url": f"{base_url}/bank/login",
        "username": "corp_demo",
        "password": f"secret://{BANK_PASSWORD_SECRET}",
        "start_date": "2024-01-01",
        "end_date": "2024-02-29",
    }
    key = "three-accounts"
    subtasks: list[SubTask] = []
    exports: list[str] = []
    login_id = stable_subtask_id(key, "login")
    for n, account in enumerate(ACCOUNTS):
        bound = bind_arguments(template, arguments | {"account_number": account, "output_path": f"stmt-{n}.csv"})
        steps = {s.inputs["step_id"]: s for s in compile_template(template, bound).subtasks}
        if n == 0:
            subtasks.append(steps["login"].model_copy(update={"subtask_id": login_id, "index": 0}))
        query_id, export_id = stable_subtask_id(key, f"query-{n}"), stable_subtask_id(key, f"export-{n}")
        subtasks.append(
            steps["query"].model_copy(
                update={"subtask_id": query_id, "depends_on": [login_id], "inputs": {"step_id": f"query-{n}"}}
            )
        )
        subtasks.append(
            steps["export"].model_copy(
                update={"subtask_id": export_id, "depends_on": [query_id], "inputs": {"step_id": f"export-{n}"}}
            )
        )
        exports.append(export_id)
    merge = SubTask(
        subtask_id=stable_subtask_id(key, "merge"),
        index=0,
        goal="合并三个账户的流水",
        depends_on=exports,
        inputs={"step_id": "merge"},
        skill_call=SkillCall(
            skill="CsvMergeSkill",
            params={"inputs": [f"stmt-{n}.csv" for n in range(3)], "output_path": "statements.csv"},
        ),
    )
    subtasks.append(merge)
    ordered = [subtask.model_copy(update={"index": index}) for index, subtask in enumerate(subtasks)]
    return TaskPlan(
        plan_id=stable_subtask_id(key, "plan"), navigation_goal="三个账户的流水", subtasks=ordered
    ), arguments


async def create_plan_run(chaos: Chaos, plan: TaskPlan, arguments: dict[str, Any]) -> str:
    """A run of a hand-made plan (no template), as the planner would hand one over."""
    with system_context("test: create a plan run", org_id=chaos.org_id):
        async with unit_of_work(chaos.app.database.sessions) as session:
            run = Run(
                org_id=chaos.org_id,
                dept_id=chaos.dept_id,
                created_by="parallel-test",
                status=TaskStatus.PENDING.value,
                result={},
                fencing_token=0,
                template_id=None,
                template_version=None,
                goal=plan.navigation_goal,
                arguments=arguments,
                versions={"workflow_definition": 1},
            )
            repository = RunRepository(session)
            await repository.add(run)
            created = NewEvent(EventType.RUN_CREATED, {"plan": plan.model_dump(mode="json"), "versions": run.versions})
            seq = await repository.append_events(run, [created])
            state = {"run_id": run.id, "plan": plan.model_dump(mode="json")}
            await repository.save_checkpoint(run, seq, state, None, None)
            return run.id


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def chaos(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, sandbox: SandboxServer
) -> AsyncIterator[Chaos]:
    backend = str(request.param)
    tmp_path: Path = tmp_path_factory.mktemp(f"parallel-{backend}")
    async with fresh_database(backend, tmp_path) as url:
        data = tmp_path / "var"
        settings = Settings(data_dir=data, database_url=url)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            client = RunQueueClient(settings)
            worker_env = dict(os.environ, FINRPA_DATA_DIR=str(data), FINRPA_DATABASE_URL=url)
            pool = WorkerPool(worker_env, prefix="p", log_dir=tmp_path / "workers")
            try:
                await wait_until_listening(app, pool)
                yield Chaos(app, demo.org_id, demo.dept_id, client, pool, sandbox.base_url)
            finally:
                pool.stop()
                client.close()


def _interval(events: Sequence[RunEvent], subtask_id: str) -> tuple[datetime, datetime]:
    actions = [e.payload for e in events if e.type == "action" and e.payload["subtask_id"] == subtask_id]
    assert actions, f"subtask {subtask_id} recorded no browser action"
    starts = [datetime.fromisoformat(a["started_at"]) for a in actions]
    ends = [start + timedelta(milliseconds=a["duration_ms"]) for start, a in zip(starts, actions, strict=True)]
    return min(starts), max(ends)


def check_merged(chaos: Chaos, run_id: str, plan: TaskPlan) -> None:
    folder = Path(chaos.app.settings.data_dir) / "runs" / run_id
    with (folder / "statements.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    sources = {row["source"] for row in rows}
    assert sources == {"stmt-0.csv", "stmt-1.csv", "stmt-2.csv"}, "every account's statement is in the merge"
    downloads = [(folder / f"stmt-{n}.csv").read_bytes() for n in range(3)]
    assert len(set(downloads)) == 3, "each branch downloaded its own account's statement"
    lines = sum(len(list(csv.DictReader(content.decode("utf-8-sig").splitlines()))) for content in downloads)
    assert len(rows) == lines


async def test_three_accounts_download_in_parallel_browser_contexts_and_merge(chaos: Chaos) -> None:
    plan, arguments = three_accounts_plan(chaos.sandbox_url)
    lanes = browser_lanes(plan)
    assert len({lanes[s.subtask_id] for s in plan.subtasks}) == 3, "three branches, three browser contexts"
    run_id = await create_plan_run(chaos, plan, arguments)
    await chaos.client.enqueue(run_id, chaos.org_id)
    status = await chaos.wait_final(run_id, timeout_s=200)
    _, events, _ = await chaos.read(run_id)
    check_run(status, events)
    queries = [s.subtask_id for s in plan.subtasks if str(s.inputs["step_id"]).startswith("query-")]
    started = [e.seq for e in events if e.type == "subtask_started" and e.payload["subtask_id"] in queries]
    assert started == list(range(started[0], started[0] + 3)), "the three branches start in one commit"
    intervals = sorted(_interval(events, subtask_id) for subtask_id in queries)
    assert intervals[1][0] < intervals[0][1], "the branches ran at the same time, not one after another"
    check_merged(chaos, run_id, plan)


async def test_a_worker_killed_while_branches_run_is_replaced_and_the_run_finishes_the_same_way(chaos: Chaos) -> None:
    await wait_until_listening(chaos.app, chaos.pool)
    plan, arguments = three_accounts_plan(chaos.sandbox_url)
    exports = {s.subtask_id for s in plan.subtasks if str(s.inputs["step_id"]).startswith("export-")}
    run_id = await create_plan_run(chaos, plan, arguments)
    await chaos.client.enqueue(run_id, chaos.org_id)
    deadline = asyncio.get_running_loop().time() + 200
    while asyncio.get_running_loop().time() < deadline:  # kill when the download branches have started
        run, events, _ = await chaos.read(run_id)
        if run.status in ("COMPLETED", "FAILED") or any(
            e.type == "subtask_started" and e.payload["subtask_id"] in exports for e in events
        ):
            break
        await asyncio.sleep(0.05)
    assert run.status not in ("COMPLETED", "FAILED"), "the kill must land while the branches run"
    holder = [e.payload["worker_id"] for e in events if e.type == "claimed"][-1]
    chaos.pool.kill(holder)
    status = await chaos.wait_final(run_id, timeout_s=240)
    _, events, _ = await chaos.read(run_id)
    check_run(status, events)
    claims = [e.payload["worker_id"] for e in events if e.type == "claimed"]
    assert claims[-1] != holder, "another worker finished the run"
    check_merged(chaos, run_id, plan)
