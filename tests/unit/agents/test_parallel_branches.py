"""Parallel branches: started together, run concurrently, committed in plan order whatever the timing (so a
durable engine replays the same steps in the same order), each in its own browser lane."""

from __future__ import annotations

import asyncio

from finrpa.agents.coordinator import AgentCoordinator, Backoff, ExecutionOutcome
from finrpa.agents.events import EventType, replay
from finrpa.agents.plan import CoordinationState, SkillCall, SubTask, TaskPlan, TaskStatus
from finrpa.runs.lanes import MAIN_LANE, browser_lanes
from finrpa.runs.repository import NewEvent
from tests.unit.agents.test_coordinator import MemoryJournal, transient


def step(subtask_id: str, index: int, *depends_on: str) -> SubTask:
    call = SkillCall(skill="X")
    return SubTask(subtask_id=subtask_id, index=index, goal=subtask_id, depends_on=list(depends_on), skill_call=call)


def three_banks() -> TaskPlan:
    return TaskPlan(
        navigation_goal="three accounts",
        subtasks=[
            step("login", 0),
            *(step(f"q{n}", 1 + 2 * n, "login") for n in range(3)),
            *(step(f"d{n}", 2 + 2 * n, f"q{n}") for n in range(3)),
            step("merge", 7, "d0", "d1", "d2"),
        ],
    )


class Timed:
    """Branch n takes (3 - n) × 10 ms, so they finish in the reverse of plan order; records the call order."""

    def __init__(self, failures: dict[str, list[ExecutionOutcome]] | None = None) -> None:
        self.called: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.failures = failures or {}

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        self.called.append(subtask.subtask_id)
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        digit = subtask.subtask_id[-1]
        await asyncio.sleep((3 - int(digit)) * 0.01 if digit.isdigit() else 0)
        self.running -= 1
        queue = self.failures.get(subtask.subtask_id, [])
        return queue.pop(0) if queue else ExecutionOutcome(success=True, data={"id": subtask.subtask_id})

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return ExecutionOutcome(success=True)


async def test_branches_start_in_one_commit_run_together_and_commit_in_plan_order() -> None:
    journal = MemoryJournal()
    executor = Timed()
    task_plan = three_banks()
    final = await AgentCoordinator(CoordinationState(run_id="r", plan=task_plan), executor, journal).run()
    assert final.status is TaskStatus.COMPLETED
    assert executor.most_at_once == 3
    assert executor.called == ["login", "q0", "q1", "q2", "d0", "d1", "d2", "merge"], "started in plan order"
    succeeded = [e.payload["subtask_id"] for e in journal.events if e.type == EventType.SUBTASK_SUCCEEDED]
    assert succeeded == ["login", "q0", "q1", "q2", "d0", "d1", "d2", "merge"], "committed in plan order"
    starts = [index for index, e in enumerate(journal.events) if e.type == EventType.SUBTASK_STARTED]
    assert starts[1:4] == [starts[1], starts[1] + 1, starts[1] + 2], "the round's three starts are one commit"
    # login (start, outcome), each round (one start, three outcomes), merge (start, outcome with the run's finish)
    assert len(journal.states) == 2 + 4 + 4 + 2
    created = NewEvent(EventType.RUN_CREATED, {"plan": task_plan.model_dump(mode="json")})
    rebuilt = replay("r", [(e.type, e.payload) for e in [created, *journal.events]])
    assert rebuilt.model_dump() == final.model_dump()


async def test_a_failed_branch_retries_after_the_round_without_disturbing_the_others() -> None:
    journal = MemoryJournal()
    executor = Timed({"q1": [transient()]})
    coordinator = AgentCoordinator(
        CoordinationState(run_id="r", plan=three_banks()), executor, journal, backoff=Backoff(base_s=0)
    )
    final = await coordinator.run()
    assert final.status is TaskStatus.COMPLETED
    types = [(e.type, e.payload.get("subtask_id")) for e in journal.events]
    failed = types.index((EventType.SUBTASK_FAILED, "q1"))
    assert types[failed - 1] == (EventType.SUBTASK_SUCCEEDED, "q0")
    assert types[failed + 1] == (EventType.SUBTASK_SUCCEEDED, "q2"), "the round's outcomes commit before the retry"
    assert types[failed + 2] == (EventType.SUBTASK_RETRY, "q1")


def test_each_branch_has_its_own_browser_lane_and_a_chain_stays_in_one() -> None:
    lanes = browser_lanes(three_banks())
    assert lanes["login"] == lanes["q0"] == lanes["d0"] == lanes["merge"] == MAIN_LANE
    assert lanes["q1"] == lanes["d1"] != MAIN_LANE
    assert lanes["q2"] == lanes["d2"] not in (MAIN_LANE, lanes["q1"])
    chain = TaskPlan(navigation_goal="chain", subtasks=[step("a", 0), step("b", 1, "a"), step("c", 2, "b")])
    assert set(browser_lanes(chain).values()) == {MAIN_LANE}
    two_roots = TaskPlan(navigation_goal="two portals", subtasks=[step("a", 0), step("b", 1)])
    assert browser_lanes(two_roots)["b"] != MAIN_LANE
