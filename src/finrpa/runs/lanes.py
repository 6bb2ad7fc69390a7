"""Browser lanes: independent branches of a plan run at the same time, each in its own browser context.

Which lane a subtask uses follows from the plan alone, so a resumed run assigns the same lanes: a subtask
continues the lane of its first dependency unless a sibling took that lane first; otherwise (a second or third
branch, a second root) it opens a new lane. A new lane starts from the session of the run's last commit (for
branches forked after a login: signed in) on the page where the lane's last committed step ended (after a resume
each branch continues on its own page, e.g. its own account's query result), or on the last commit's page when
the lane has done nothing yet; if the portal shows its login form, the executor signs in again as on any resume.
Each lane has its own evidence recorder, so every branch commits exactly its own actions. Runs whose executor is
not the skill executor (goal runs driving one LLM loop) keep one lane and run their subtasks one at a time.
"""

from __future__ import annotations

import copy

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import ExecutionOutcome, SubtaskExecutor
from finrpa.agents.plan import CoordinationState, SubTask, TaskPlan
from finrpa.runs.browser_session import BrowserSession, restored_storage
from finrpa.runs.evidence import ACTION_EVENT, EvidenceRecorder
from finrpa.runs.execution import RunExecutor
from finrpa.runs.journal_sql import SqlJournal
from finrpa.runs.repository import RunRepository

MAIN_LANE = "main"


def browser_lanes(plan: TaskPlan) -> dict[str, str]:
    """subtask id → lane name, from the plan's dependencies alone."""
    lanes: dict[str, str] = {}
    continued: set[str] = set()
    for subtask in sorted(plan.subtasks, key=lambda s: s.index):
        parents = [dep for dep in subtask.depends_on if dep in lanes]
        if parents and parents[0] not in continued:
            continued.add(parents[0])
            lanes[subtask.subtask_id] = lanes[parents[0]]
        elif not parents and not lanes:
            lanes[subtask.subtask_id] = MAIN_LANE
        else:
            lanes[subtask.subtask_id] = f"lane-{subtask.subtask_id}"
    return lanes


class BrowserLanes:
    """The coordinator's executor for a run whose plan may branch: routes each subtask to its lane's executor."""

    def __init__(self, executor: SubtaskExecutor, journal: SqlJournal) -> None:
        self.main = executor
        self.journal = journal
        self._lanes: dict[str, SubtaskExecutor] = {MAIN_LANE: executor}

    @property
    def parallel(self) -> bool:
        """Whether branches may run at once (each in its own browser context)."""
        return isinstance(self.main, RunExecutor)

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return await (await self.lane_of(state, subtask)).execute(state, subtask)

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return await (await self.lane_of(state, subtask)).compensate(state, subtask)

    async def lane_of(self, state: CoordinationState, subtask: SubTask) -> SubtaskExecutor:
        if not isinstance(self.main, RunExecutor):
            return self.main
        lanes = browser_lanes(state.plan)
        lane = lanes.get(subtask.subtask_id, MAIN_LANE)
        if lane not in self._lanes:
            done = [subtask_id for subtask_id in state.completed_subtasks if lanes.get(subtask_id) == lane]
            url = await self._page_after(done[-1]) if done else None
            self._lanes[lane] = self._open(self.main, url)
        return self._lanes[lane]

    async def _page_after(self, subtask_id: str) -> str | None:
        """The page a committed step left its browser on (the last recorded action's URL)."""
        run_id = self.journal.identity.run_id

        async def read(session: AsyncSession) -> str | None:
            events = await RunRepository(session).events(run_id)
            urls = [
                e.payload.get("url_after")
                for e in events
                if e.type == ACTION_EVENT and e.payload.get("subtask_id") == subtask_id
            ]
            return str(urls[-1]) if urls and urls[-1] else None

        result: str | None = await self.journal.transaction(read)
        return result

    @property
    def open_lanes(self) -> list[str]:
        return sorted(self._lanes)

    def _open(self, main: RunExecutor, page: str | None) -> RunExecutor:
        storage, url = self.journal.last_session()
        recorder = EvidenceRecorder(
            org_id=main.identity.org_id,
            run_id=main.identity.run_id,
            screenshots=main.recorder.screenshots,
            durable=main.recorder.durable,
        )
        browser = BrowserSession(
            main.browser.manager,
            type(main.browser.config).model_validate(
                {**dict(main.browser.config), "storage_state": restored_storage(storage)}
            ),
            recorder,
            screenshots=main.browser.screenshots,
            resume_url=page or url,
        )
        # Same run, fencing token, ledger, gate and secrets; only the browser context and its evidence differ.
        executor = copy.copy(main)
        executor.browser = browser
        executor.recorder = recorder
        executor._start_urls = {}
        return executor

    async def close(self) -> None:
        """Close the branches' browser contexts (the main lane's belongs to the run)."""
        for lane, executor in self._lanes.items():
            if lane != MAIN_LANE and isinstance(executor, RunExecutor):
                await executor.browser.close()
