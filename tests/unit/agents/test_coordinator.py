"""The coordinator's failure strategies, retries, replans and human resolutions, with a scripted executor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from finrpa.agents.coordinator import AgentCoordinator, Backoff, ExecutionOutcome
from finrpa.agents.events import EventType, apply_event, replay
from finrpa.agents.plan import CoordinationState, SkillCall, SubTask, SubTaskStatus, TaskPlan, TaskStatus
from finrpa.runs.repository import NewEvent
from finrpa.skills.base import ErrorStrategy, SideEffect


class MemoryJournal:
    def __init__(self) -> None:
        self.events: list[NewEvent] = []
        self.states: list[CoordinationState] = []

    async def commit(
        self,
        events: Sequence[NewEvent],
        state: CoordinationState,
        *,
        error: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        self.events.extend(events)
        self.states.append(state)

    def types(self) -> list[str]:
        return [event.type for event in self.events]


class ScriptedExecutor:
    """Returns scripted outcomes per subtask id, in order; success when the script runs out."""

    def __init__(self, script: dict[str, list[ExecutionOutcome]]) -> None:
        self.script = script
        self.calls: list[str] = []
        self.compensated: list[str] = []

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        self.calls.append(subtask.subtask_id)
        queue = self.script.get(subtask.subtask_id, [])
        return queue.pop(0) if queue else ExecutionOutcome(success=True, data={"done": subtask.subtask_id})

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        self.compensated.append(subtask.subtask_id)
        return ExecutionOutcome(success=True)


def plan(*strategies: ErrorStrategy, writes: Sequence[int] = ()) -> TaskPlan:
    subtasks = []
    for index, strategy in enumerate(strategies):
        side = SideEffect.WRITE if index in writes else SideEffect.READ
        subtasks.append(
            SubTask(
                subtask_id=f"s{index}",
                index=index,
                goal=f"step {index}",
                failure_strategy=strategy,
                max_retries=2,
                depends_on=[f"s{index - 1}"] if index else [],
                skill_call=SkillCall(skill="X", side_effect=side, compensation="Undo" if side else None),
            )
        )
    return TaskPlan(navigation_goal="test", subtasks=subtasks)


def transient(message: str = "系统繁忙") -> ExecutionOutcome:
    return ExecutionOutcome(success=False, error=message, retryable=True)


def fatal(message: str = "password rejected") -> ExecutionOutcome:
    return ExecutionOutcome(success=False, error=message, retryable=False)


async def _no_sleep(_: float) -> None:
    return None


def coordinator(
    task_plan: TaskPlan, executor: ScriptedExecutor, journal: MemoryJournal, **kwargs: Any
) -> AgentCoordinator:
    state = CoordinationState(run_id="r1", plan=task_plan)
    return AgentCoordinator(state, executor, journal, sleep=_no_sleep, **kwargs)


async def test_all_steps_succeed_and_the_run_completes() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({})
    final = await coordinator(plan(ErrorStrategy.RETRY, ErrorStrategy.RETRY), executor, journal).run()
    assert final.status is TaskStatus.COMPLETED
    assert executor.calls == ["s0", "s1"]
    assert final.completed_subtasks == ["s0", "s1"]


async def test_a_step_costs_one_commit_its_outcome_carries_the_next_start_or_the_finish() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({})
    final = await coordinator(plan(*[ErrorStrategy.RETRY] * 3), executor, journal).run()
    assert final.status is TaskStatus.COMPLETED
    assert len(journal.states) == 4  # the first start, then one commit per step
    assert journal.types() == [
        EventType.SUBTASK_STARTED,
        EventType.SUBTASK_SUCCEEDED,
        EventType.SUBTASK_STARTED,
        EventType.SUBTASK_SUCCEEDED,
        EventType.SUBTASK_STARTED,
        EventType.SUBTASK_SUCCEEDED,
        EventType.RUN_FINISHED,
    ]
    assert [subtask.attempts for subtask in final.plan.subtasks] == [1, 1, 1]
    assert _rebuilt(final.plan, journal.events).model_dump() == final.model_dump()


async def test_a_start_committed_ahead_is_run_again_after_a_crash_as_any_interrupted_step() -> None:
    """A worker that dies right after committing step 1's outcome (with step 2's start) leaves step 2 RUNNING: the
    next worker runs it as its second attempt, as it would after a crash inside step 2."""
    task_plan = plan(*[ErrorStrategy.RETRY] * 2)
    journal, executor = MemoryJournal(), ScriptedExecutor({})
    await coordinator(task_plan, executor, journal).run()
    cut = journal.types().index(EventType.SUBTASK_SUCCEEDED) + 2  # through step 1's outcome and step 2's start
    crashed = _rebuilt(task_plan, journal.events[:cut])
    assert crashed.plan.subtask("s1").status is SubTaskStatus.RUNNING
    resumed, again = MemoryJournal(), ScriptedExecutor({})
    final = await AgentCoordinator(crashed, again, resumed, sleep=_no_sleep).run()
    assert final.status is TaskStatus.COMPLETED
    assert again.calls == ["s1"]
    assert resumed.events[0].type == EventType.SUBTASK_STARTED and resumed.events[0].payload["attempt"] == 2


def _rebuilt(task_plan: TaskPlan, events: Sequence[NewEvent]) -> CoordinationState:
    created = NewEvent(EventType.RUN_CREATED, {"plan": task_plan.model_dump(mode="json")})
    return replay("r1", [(event.type, event.payload) for event in [created, *events]])


async def test_transient_failures_are_retried_with_backoff_then_succeed() -> None:
    delays: list[float] = []

    async def record_sleep(delay: float) -> None:
        delays.append(delay)

    journal = MemoryJournal()
    executor = ScriptedExecutor({"s0": [transient(), transient()]})
    state = CoordinationState(run_id="r1", plan=plan(ErrorStrategy.RETRY))
    final = await AgentCoordinator(state, executor, journal, sleep=record_sleep, backoff=Backoff(1, 2, 30)).run()
    assert final.status is TaskStatus.COMPLETED
    assert executor.calls == ["s0", "s0", "s0"]
    assert delays == [1.0, 2.0]


async def test_a_rejected_password_aborts_after_exactly_one_attempt() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({"s0": [fatal()]})
    final = await coordinator(plan(ErrorStrategy.ABORT, ErrorStrategy.RETRY), executor, journal).run()
    assert final.status is TaskStatus.ABORTED
    assert executor.calls == ["s0"]
    assert final.last_error == "password rejected"


async def test_skip_strategy_skips_and_continues() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({"s0": [fatal("no rows")]})
    final = await coordinator(plan(ErrorStrategy.SKIP, ErrorStrategy.RETRY), executor, journal).run()
    assert final.status is TaskStatus.COMPLETED
    assert final.plan.subtask("s0").status is SubTaskStatus.SKIPPED
    assert executor.calls == ["s0", "s1"]


async def test_exhausted_retries_hand_the_step_to_a_person() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({"s0": [transient()] * 3})
    final = await coordinator(plan(ErrorStrategy.RETRY), executor, journal).run()
    assert final.status is TaskStatus.NEEDS_HUMAN
    assert executor.calls == ["s0"] * 3
    assert "retries exhausted after 3 attempts" in (final.last_error or "")


async def test_a_failure_that_retrying_cannot_fix_goes_to_a_person_at_once() -> None:
    journal, executor = MemoryJournal(), ScriptedExecutor({"s0": [fatal("the portal did not accept the form")]})
    final = await coordinator(plan(ErrorStrategy.RETRY), executor, journal).run()
    assert final.status is TaskStatus.NEEDS_HUMAN
    assert executor.calls == ["s0"]
    assert final.last_error == "not retried, a person must act: the portal did not accept the form"


class CountingPlanner:
    def __init__(self) -> None:
        self.calls = 0

    async def replan(self, state: CoordinationState, failure: str) -> TaskPlan:
        self.calls += 1
        fresh = state.plan.model_copy(deep=True)
        for subtask in fresh.subtasks:
            if subtask.status is SubTaskStatus.FAILED:
                subtask.status = SubTaskStatus.PENDING
                subtask.attempts = 0
        fresh.is_replan = True
        fresh.replan_reason = failure
        fresh.version += 1
        return fresh


async def test_replan_gives_up_after_three_replans_and_needs_a_person() -> None:
    journal = MemoryJournal()
    executor = ScriptedExecutor({"s0": [fatal("stale data")] * 10})
    planner = CountingPlanner()
    final = await coordinator(plan(ErrorStrategy.REPLAN), executor, journal, planner=planner).run()
    assert planner.calls == 3
    assert final.replan_count == 3
    assert final.status is TaskStatus.NEEDS_HUMAN
    assert "3 replans used" in (final.last_error or "")


async def test_abort_runs_compensations_in_reverse_order() -> None:
    journal = MemoryJournal()
    executor = ScriptedExecutor({"s2": [fatal("portal refused")]})
    task_plan = plan(ErrorStrategy.RETRY, ErrorStrategy.RETRY, ErrorStrategy.ABORT, writes=(0, 1))
    final = await coordinator(task_plan, executor, journal).run()
    assert final.status is TaskStatus.ABORTED
    assert executor.compensated == ["s1", "s0"]


async def test_a_crashing_executor_never_crashes_the_run() -> None:
    class Exploding(ScriptedExecutor):
        async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
            raise RuntimeError("browser died")

    journal = MemoryJournal()
    final = await coordinator(plan(ErrorStrategy.RETRY), Exploding({}), journal).run()
    assert final.status is TaskStatus.NEEDS_HUMAN
    assert "browser died" in (final.last_error or "")


@pytest.mark.parametrize(
    ("action", "expected_status", "expected_calls"),
    [
        ("skip", TaskStatus.COMPLETED, ["s0", "s1"]),
        ("mark_done", TaskStatus.COMPLETED, ["s0", "s1"]),
        ("retry", TaskStatus.COMPLETED, ["s0", "s0", "s1"]),
        ("abort", TaskStatus.ABORTED, ["s0"]),
    ],
)
async def test_each_human_resolution_continues_the_run_correctly(
    action: str, expected_status: TaskStatus, expected_calls: list[str]
) -> None:
    journal = MemoryJournal()
    executor = ScriptedExecutor({"s0": [ExecutionOutcome(success=False, error="captcha", needs_human=True)]})
    first = await coordinator(plan(ErrorStrategy.RETRY, ErrorStrategy.RETRY), executor, journal).run()
    assert first.status is TaskStatus.NEEDS_HUMAN
    resolution = NewEvent(EventType.HUMAN_RESOLUTION, {"subtask_id": "s0", "action": action, "user_id": "u1"})
    resumed_state = apply_event(first, resolution.type, resolution.payload)
    resumed = AgentCoordinator(resumed_state, executor, journal, sleep=_no_sleep)
    final = await resumed.run()
    assert final.status is expected_status
    assert executor.calls == expected_calls


async def test_state_rebuilt_from_the_event_log_equals_the_live_state() -> None:
    journal = MemoryJournal()
    executor = ScriptedExecutor({"s0": [transient()], "s1": [fatal("no rows")]})
    task_plan = plan(ErrorStrategy.RETRY, ErrorStrategy.SKIP, ErrorStrategy.RETRY)
    live = await coordinator(task_plan, executor, journal).run()
    created = NewEvent(EventType.RUN_CREATED, {"plan": task_plan.model_dump(mode="json")})
    rebuilt = replay("r1", [(event.type, event.payload) for event in [created, *journal.events]])
    assert rebuilt.model_dump() == live.model_dump()


async def test_independent_branches_run_in_parallel() -> None:
    import asyncio

    running: set[str] = set()
    overlap: list[bool] = []

    class Slow(ScriptedExecutor):
        async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
            running.add(subtask.subtask_id)
            await asyncio.sleep(0.02)
            overlap.append(len(running) > 1)
            running.discard(subtask.subtask_id)
            return ExecutionOutcome(success=True, data={"id": subtask.subtask_id})

    branches = [
        SubTask(subtask_id=f"b{i}", index=i, goal=f"bank {i}", skill_call=SkillCall(skill="X")) for i in range(3)
    ]
    merge = SubTask(
        subtask_id="merge",
        index=3,
        goal="merge",
        depends_on=["b0", "b1", "b2"],
        skill_call=SkillCall(skill="X"),
    )
    task_plan = TaskPlan(navigation_goal="three banks", subtasks=[*branches, merge])
    journal = MemoryJournal()
    executor = Slow({})
    final = await coordinator(task_plan, executor, journal).run()
    assert final.status is TaskStatus.COMPLETED
    assert any(overlap)
    assert journal.types().index(EventType.SUBTASK_STARTED) < journal.types().index(EventType.SUBTASK_SUCCEEDED)
    assert final.completed_subtasks[-1] == "merge"


async def test_a_person_aborting_runs_compensations_and_finishes_the_run() -> None:
    journal = MemoryJournal()
    executor = ScriptedExecutor({"s1": [ExecutionOutcome(success=False, error="captcha", needs_human=True)]})
    first = await coordinator(plan(ErrorStrategy.RETRY, ErrorStrategy.RETRY, writes=(0,)), executor, journal).run()
    resolution = {"subtask_id": "s1", "action": "abort", "user_id": "u1"}
    resumed = AgentCoordinator(apply_event(first, EventType.HUMAN_RESOLUTION, resolution), executor, journal)
    final = await resumed.run()
    assert final.status is TaskStatus.ABORTED and final.finished
    assert executor.compensated == ["s0"]
    assert journal.types()[-1] == EventType.RUN_FINISHED
