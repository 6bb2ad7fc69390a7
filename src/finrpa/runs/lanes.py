"""Browser lanes: independent branches of a plan run at the same time, each in its own browser context.

Which lane a subtask uses follows from the plan alone, so a resumed run assigns the same lanes: a subtask
continues the lane of its first dependency unless a sibling took that lane first; otherwise (a second or third
branch, a second root) it opens a new lane. A lane pinned on a subtask (``inputs["lane"]``, written when a goal
run's plan is made) is kept, so a replan that drops a failed branch does not move the completed subtasks of the
others to another lane. A new lane starts from the session of the run's last commit (for branches forked after a
login: signed in) on the page where the lane's last committed step ended (after a resume each branch continues on
its own page, e.g. its own account's query result), or on the last commit's page when the lane has done nothing
yet; if the portal shows its login form, the executor signs in again as on any resume. Each lane has its own
evidence recorder, so every branch commits exactly its own actions.

The run's executor is either the skill executor (template and plan runs) or an executor built around it (a goal
run's LLM loop, :class:`LaneForking`), which is rebuilt for each lane around that lane's copy of the skill
executor: its browser, evidence and action gate become the lane's. Other executors keep one lane and run their
subtasks one at a time.
"""

from __future__ import annotations

import copy
from typing import Protocol, runtime_checkable

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import ExecutionOutcome, SubtaskExecutor
from finrpa.agents.plan import CoordinationState, SubTask, TaskPlan
from finrpa.runs.browser_session import BrowserSession, restored_storage
from finrpa.runs.evidence import ACTION_EVENT, EvidenceRecorder
from finrpa.runs.execution import RunExecutor
from finrpa.runs.journal_sql import SqlJournal
from finrpa.runs.repository import RunRepository

MAIN_LANE = "main"
LANE_INPUT = "lane"  # a subtask's pinned lane


def browser_lanes(plan: TaskPlan) -> dict[str, str]:
    """subtask id → lane name, from the plan's dependencies (and pinned lanes) alone."""
    ordered = sorted(plan.subtasks, key=lambda s: s.index)
    lanes = {s.subtask_id: str(s.inputs[LANE_INPUT]) for s in ordered if s.inputs.get(LANE_INPUT)}
    continued = {  # parents whose lane a pinned child continues
        s.depends_on[0] for s in ordered if s.subtask_id in lanes and s.depends_on and _same_lane(lanes, s)
    }
    for subtask in ordered:
        if subtask.subtask_id in lanes:
            continue
        parents = [dep for dep in subtask.depends_on if dep in lanes]
        if parents and parents[0] not in continued:
            continued.add(parents[0])
            lanes[subtask.subtask_id] = lanes[parents[0]]
        elif not parents and not lanes:
            lanes[subtask.subtask_id] = MAIN_LANE
        else:
            lanes[subtask.subtask_id] = f"lane-{subtask.subtask_id}"
    return lanes


def _same_lane(lanes: dict[str, str], subtask: SubTask) -> bool:
    return lanes.get(subtask.depends_on[0]) == lanes[subtask.subtask_id]


def pin_lanes(plan: TaskPlan) -> TaskPlan:
    """The plan with every subtask's lane pinned in its inputs (subtasks pinned before keep theirs)."""
    lanes = browser_lanes(plan)

    def pinned(subtask: SubTask) -> SubTask:
        if subtask.inputs.get(LANE_INPUT):
            return subtask
        return subtask.model_copy(update={"inputs": {**subtask.inputs, LANE_INPUT: lanes[subtask.subtask_id]}})

    return plan.model_copy(update={"subtasks": [pinned(subtask) for subtask in plan.subtasks]})


@runtime_checkable
class LaneForking(Protocol):
    """An executor built around the run's skill executor that can be rebuilt around a lane's copy of it."""

    @property
    def lane_steps(self) -> RunExecutor | None:
        """The skill executor it is built around (None: it cannot be rebuilt, and runs one subtask at a time)."""
        ...

    def in_lane(self, steps: RunExecutor) -> SubtaskExecutor:
        """The same executor around ``steps``, a lane's skill executor (its own browser context and evidence)."""
        ...


class BrowserLanes:
    """The coordinator's executor for a run whose plan may branch: routes each subtask to its lane's executor."""

    def __init__(self, executor: SubtaskExecutor, journal: SqlJournal) -> None:
        self.main = executor
        self.journal = journal
        self.steps = _skill_executor(executor)
        self._lanes: dict[str, SubtaskExecutor] = {MAIN_LANE: executor}
        self._opened: dict[str, RunExecutor] = {}

    @property
    def parallel(self) -> bool:
        """Whether branches may run at once (each in its own browser context)."""
        return self.steps is not None

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return await (await self.lane_of(state, subtask)).execute(state, subtask)

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return await (await self.lane_of(state, subtask)).compensate(state, subtask)

    async def lane_of(self, state: CoordinationState, subtask: SubTask) -> SubtaskExecutor:
        if self.steps is None:
            return self.main
        lanes = browser_lanes(state.plan)
        lane = lanes.get(subtask.subtask_id, MAIN_LANE)
        if lane not in self._lanes:
            done = [subtask_id for subtask_id in state.completed_subtasks if lanes.get(subtask_id) == lane]
            url = await self._page_after(done[-1]) if done else None
            opened = self._open(self.steps, url)
            self._opened[lane] = opened
            self._lanes[lane] = self.main.in_lane(opened) if isinstance(self.main, LaneForking) else opened
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
        for executor in self._opened.values():
            await executor.browser.close()


def _skill_executor(executor: SubtaskExecutor) -> RunExecutor | None:
    """The skill executor lanes copy: the run's executor itself, or the one a lane-forking executor is built around."""
    if isinstance(executor, RunExecutor):
        return executor
    if isinstance(executor, LaneForking):
        return executor.lane_steps
    return None
