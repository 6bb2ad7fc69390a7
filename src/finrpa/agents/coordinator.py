"""AgentCoordinator: drives a run's plan through its subtasks and applies failure strategies.

Deterministic and side-effect free except through its two ports: the executor (which touches the world) and
the journal (which commits events and the checkpoint atomically). State changes only by folding the events it
commits, so a resumed run rebuilt from the log continues exactly where the last commit left it.

Failure handling: a retryable failure is retried with exponential backoff up to ``max_retries``; after that
(or for a non-retryable failure) the subtask's strategy applies — SKIP marks it skipped, ABORT ends the run
(compensations run in reverse order), REPLAN asks the planner for the rest of the plan (at most
``max_replans`` times), RETRY with nothing left to try hands the step to a person (NEEDS_HUMAN).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from finrpa.agents.events import EventType, apply_event
from finrpa.agents.plan import CoordinationState, SubTask, SubTaskStatus, TaskStatus
from finrpa.agents.planner import ReplanPlanner
from finrpa.runs.repository import NewEvent
from finrpa.skills.base import ErrorStrategy

MAX_REPLANS = 3


@dataclass
class ExecutionOutcome:
    """What executing one subtask produced; ``events`` (actions, decisions) are committed with it."""

    success: bool
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_code: str | None = None
    retryable: bool = False
    needs_human: bool = False
    events: list[NewEvent] = field(default_factory=list)
    url: str | None = None
    duration_ms: int = 0
    human_context: dict[str, Any] = field(default_factory=dict)
    abort_run: bool = False  # refused for good (e.g. by policy): end the run ABORTED, no retry or replan


class SubtaskExecutor(Protocol):
    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome: ...

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome: ...


class Journal(Protocol):
    async def commit(
        self,
        events: Sequence[NewEvent],
        state: CoordinationState,
        *,
        error: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None: ...


AuditCallback = Callable[[SubTask, ExecutionOutcome], Awaitable[None]]


@dataclass(frozen=True)
class Backoff:
    base_s: float = 1.0
    factor: float = 2.0
    max_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return float(min(self.max_s, self.base_s * self.factor ** max(0, attempt - 1)))


class AgentCoordinator:
    def __init__(
        self,
        state: CoordinationState,
        executor: SubtaskExecutor,
        journal: Journal,
        *,
        planner: ReplanPlanner | None = None,
        max_replans: int = MAX_REPLANS,
        backoff: Backoff = Backoff(),
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        audit_callback: AuditCallback | None = None,
        parallel: bool = True,
    ) -> None:
        self.state = state
        self.executor = executor
        self.journal = journal
        self.planner = planner
        self.max_replans = max_replans
        self.backoff = backoff
        self.sleep = sleep
        self.audit_callback = audit_callback
        self.parallel = parallel
        self._commit_lock = asyncio.Lock()
        self._started_ahead: str | None = None  # a subtask whose start was committed with the previous outcome

    async def emit(
        self, events: Sequence[NewEvent], *, error: str | None = None, result: dict[str, Any] | None = None
    ) -> None:
        """Commit events and the state they lead to, then adopt that state."""
        async with self._commit_lock:
            new_state = self.state
            for event in events:
                new_state = apply_event(new_state, event.type, event.payload)
            await self.journal.commit(events, new_state, error=error, result=result)
            self.state = new_state

    async def run(self) -> CoordinationState:
        """Run until the plan is done, a person is needed, or the run ends; returns the final state."""
        if self.state.status is TaskStatus.PENDING:
            self.state = self.state.model_copy(update={"status": TaskStatus.RUNNING})
        while self.state.status is TaskStatus.RUNNING:
            ready = self._ready()
            if not ready:
                await self._finish()
                break
            if self.parallel and len(ready) > 1:
                await self._run_parallel(ready)
            else:
                await self._run_subtask(ready[0])
        if self.state.status is TaskStatus.ABORTED and not self.state.finished:
            await self._abort("aborted by a person")
        return self.state

    def _ready(self) -> list[SubTask]:
        return _ready(self.state)

    async def _run_subtask(self, subtask: SubTask) -> None:
        if self._started_ahead == subtask.subtask_id:
            attempt = subtask.attempts  # its start was committed with the previous step's outcome
        else:
            attempt = subtask.attempts + 1
            started = {"subtask_id": subtask.subtask_id, "attempt": attempt}
            await self.emit([NewEvent(EventType.SUBTASK_STARTED, started)])
        self._started_ahead = None
        outcome = await self._execute(subtask.subtask_id)
        await self._settle(subtask.subtask_id, outcome, attempt, then=True)
        if not outcome.success:
            await self._handle_failure(self.state.plan.subtask(subtask.subtask_id), outcome, attempt)

    async def _run_parallel(self, ready: Sequence[SubTask]) -> None:
        """Independent branches at once, in an order that does not depend on timing: one commit starts them all,
        they execute concurrently (started in plan order, so a durable engine numbers their steps the same way on
        every replay), and their outcomes are committed in plan order once all have returned."""
        attempts = {subtask.subtask_id: subtask.attempts + 1 for subtask in ready}
        await self.emit(
            [
                NewEvent(EventType.SUBTASK_STARTED, {"subtask_id": subtask_id, "attempt": attempt})
                for subtask_id, attempt in attempts.items()
            ]
        )
        outcomes = await asyncio.gather(*(self._execute(subtask_id) for subtask_id in attempts))
        for (subtask_id, attempt), outcome in zip(attempts.items(), outcomes, strict=True):
            await self._settle(subtask_id, outcome, attempt)
        for (subtask_id, attempt), outcome in zip(attempts.items(), outcomes, strict=True):
            if not outcome.success and self.state.status is TaskStatus.RUNNING:
                await self._handle_failure(self.state.plan.subtask(subtask_id), outcome, attempt)

    async def _execute(self, subtask_id: str) -> ExecutionOutcome:
        # Nothing is awaited before the executor is called: concurrent branches reach it in the order started.
        started = time.perf_counter()
        current = self.state.plan.subtask(subtask_id)
        try:
            outcome = await self.executor.execute(self.state, current)
        except Exception as exc:  # noqa: BLE001 - a run never crashes: any error becomes a failed outcome
            outcome = ExecutionOutcome(
                success=False,
                error=f"{type(exc).__name__}: {exc}",
                error_code="executor_error",
                retryable=True,
            )
        outcome.duration_ms = outcome.duration_ms or int((time.perf_counter() - started) * 1000)
        return outcome

    async def _settle(self, subtask_id: str, outcome: ExecutionOutcome, attempt: int, *, then: bool = False) -> None:
        """Commit a subtask's outcome (its actions and decisions with it) and tell the audit callback. ``then``
        (one subtask at a time): a success is committed together with what the run does next, when that is
        certain — the next subtask's start, or the run's completion — so a step costs one transaction, not two."""
        if outcome.success:
            payload = {"subtask_id": subtask_id, "data": outcome.data, "duration_ms": outcome.duration_ms}
            events = [*outcome.events, NewEvent(EventType.SUBTASK_SUCCEEDED, payload)]
            following, result = self._next_after(events) if then else ([], None)
            await self.emit([*events, *following], result=result)
            started = [event.payload["subtask_id"] for event in following if event.type == EventType.SUBTASK_STARTED]
            self._started_ahead = started[0] if started else None
        else:
            failed = {
                "subtask_id": subtask_id,
                "error": outcome.error,
                "error_code": outcome.error_code,
                "attempt": attempt,
                "retryable": outcome.retryable,
                "duration_ms": outcome.duration_ms,
            }
            await self.emit([*outcome.events, NewEvent(EventType.SUBTASK_FAILED, failed)], error=outcome.error)
        if self.audit_callback is not None:
            await self.audit_callback(self.state.plan.subtask(subtask_id), outcome)

    def _next_after(self, events: Sequence[NewEvent]) -> tuple[list[NewEvent], dict[str, Any] | None]:
        """What :meth:`run` would commit next once ``events`` are committed, when nothing in between can change
        it: the next subtask's start (only when the run would start one subtask, not parallel branches), or the
        run's completion with its result. ([], None) otherwise."""
        state = self.state
        for event in events:
            state = apply_event(state, event.type, event.payload)
        if state.status is not TaskStatus.RUNNING:
            return [], None
        ready = _ready(state)
        if not ready:
            finished = _completion(state)
            return ([finished[0]], finished[1]) if finished is not None else ([], None)
        if self.parallel and len(ready) > 1:
            return [], None
        started = {"subtask_id": ready[0].subtask_id, "attempt": ready[0].attempts + 1}
        return [NewEvent(EventType.SUBTASK_STARTED, started)], None

    async def _handle_failure(self, subtask: SubTask, outcome: ExecutionOutcome, attempt: int) -> None:
        if outcome.abort_run:
            await self._abort(outcome.error or "the step was refused")
            return
        if outcome.needs_human:
            await self._needs_human(subtask, outcome.error or "a person must act", outcome.human_context)
            return
        if outcome.retryable and attempt <= subtask.max_retries:
            delay = self.backoff.delay(attempt)
            await self.emit([NewEvent(EventType.SUBTASK_RETRY, {"subtask_id": subtask.subtask_id, "delay_s": delay})])
            await self.sleep(delay)
            return
        strategy = subtask.failure_strategy
        reason = outcome.error or "the step failed"
        if strategy is ErrorStrategy.SKIP:
            await self.emit([NewEvent(EventType.SUBTASK_SKIPPED, {"subtask_id": subtask.subtask_id, "reason": reason})])
        elif strategy is ErrorStrategy.ABORT:
            await self._abort(reason)
        elif strategy is ErrorStrategy.REPLAN or (self.planner is not None and attempt > 2):
            await self._replan(subtask, reason)
        elif outcome.retryable:
            await self._needs_human(
                subtask, f"retries exhausted after {attempt} attempts: {reason}", outcome.human_context
            )
        else:  # e.g. a portal that rejected the form: retrying the same input cannot help
            await self._needs_human(subtask, f"not retried, a person must act: {reason}", outcome.human_context)

    async def _needs_human(self, subtask: SubTask, reason: str, context: dict[str, Any]) -> None:
        payload = {"subtask_id": subtask.subtask_id, "reason": reason, **context}
        await self.emit([NewEvent(EventType.NEEDS_HUMAN, payload)], error=reason)

    async def _replan(self, subtask: SubTask, reason: str) -> None:
        if self.planner is None or self.state.replan_count >= self.max_replans:
            why = "no planner can replan this run" if self.planner is None else f"{self.max_replans} replans used"
            await self._needs_human(subtask, f"{reason} ({why})", {})
            return
        try:
            plan = await self.planner.replan(self.state, reason)
        except Exception as exc:  # noqa: BLE001 - a failed replan is a person's job, not a crash
            await self._needs_human(subtask, f"{reason}; replanning failed: {exc}", {})
            return
        payload = {
            "reason": reason,
            "plan": plan.model_dump(mode="json"),
            "failed_subtask_id": subtask.subtask_id,
        }
        await self.emit([NewEvent(EventType.REPLANNED, payload)])

    async def _abort(self, reason: str) -> None:
        events: list[NewEvent] = []
        for subtask in reversed(self._completed_writes()):
            outcome = await self.executor.compensate(self.state, subtask)
            events.extend(outcome.events)
            events.append(
                NewEvent(
                    EventType.COMPENSATION,
                    {"subtask_id": subtask.subtask_id, "success": outcome.success, "error": outcome.error},
                )
            )
        finished = {"status": TaskStatus.ABORTED.value, "error": reason}
        await self.emit([*events, NewEvent(EventType.RUN_FINISHED, finished)], error=reason)

    def _completed_writes(self) -> list[SubTask]:
        order = {subtask_id: index for index, subtask_id in enumerate(self.state.completed_subtasks)}
        writes = [
            subtask
            for subtask in self.state.plan.subtasks
            if subtask.status is SubTaskStatus.SUCCESS
            and subtask.skill_call is not None
            and subtask.skill_call.side_effect.value != "read"
        ]
        return sorted(writes, key=lambda subtask: order.get(subtask.subtask_id, 0))

    async def _finish(self) -> None:
        finished = _completion(self.state)
        if finished is not None:
            await self.emit([finished[0]], result=finished[1])
            return
        blocked = [subtask.subtask_id for subtask in self.state.plan.subtasks if subtask.status is SubTaskStatus.FAILED]
        reason = f"steps {', '.join(blocked)} failed and block the rest of the plan"
        await self.emit(
            [NewEvent(EventType.RUN_FINISHED, {"status": TaskStatus.FAILED.value, "error": reason})],
            error=reason,
        )


def _ready(state: CoordinationState) -> list[SubTask]:
    """The subtasks that may run now: pending or interrupted, with every dependency done."""
    done = {SubTaskStatus.SUCCESS, SubTaskStatus.SKIPPED}
    by_id = {subtask.subtask_id: subtask for subtask in state.plan.subtasks}
    return [
        subtask
        for subtask in state.plan.subtasks
        if subtask.status in (SubTaskStatus.PENDING, SubTaskStatus.RUNNING)
        and all(by_id[dep].status in done for dep in subtask.depends_on if dep in by_id)
    ]


def _completion(state: CoordinationState) -> tuple[NewEvent, dict[str, Any]] | None:
    """The RUN_FINISHED event and result of a plan whose subtasks all succeeded or were skipped, else None."""
    if not {subtask.status for subtask in state.plan.subtasks} <= {SubTaskStatus.SUCCESS, SubTaskStatus.SKIPPED}:
        return None
    result = {subtask.inputs.get("step_id", subtask.subtask_id): subtask.result_data for subtask in state.plan.subtasks}
    return NewEvent(EventType.RUN_FINISHED, {"status": TaskStatus.COMPLETED.value}), result
