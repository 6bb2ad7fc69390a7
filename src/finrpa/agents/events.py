"""Run events and the fold that rebuilds a CoordinationState from them (event sourcing).

The coordinator never mutates its state directly: it emits events, commits them, and applies them with
:func:`apply_event`. Resuming a run replays the same function over the stored log, so the checkpoint can
always be rebuilt from the events alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from finrpa.agents.plan import CoordinationState, SubTaskStatus, TaskPlan, TaskStatus


class EventType(StrEnum):
    RUN_CREATED = "run_created"
    CLAIMED = "claimed"
    SUBTASK_STARTED = "subtask_started"
    ACTION = "action"
    SUBTASK_SUCCEEDED = "subtask_succeeded"
    SUBTASK_FAILED = "subtask_failed"
    SUBTASK_RETRY = "subtask_retry"
    SUBTASK_SKIPPED = "subtask_skipped"
    PLANNED = "planned"
    REPLANNED = "replanned"
    NEEDS_HUMAN = "needs_human"
    HUMAN_RESOLUTION = "human_resolution"
    EFFECT = "effect"
    POLICY_DECISION = "policy_decision"
    RISK_DECISION = "risk_decision"
    APPROVAL_REQUESTED = "approval_requested"
    APPROVAL_DECIDED = "approval_decided"
    EGRESS_BLOCKED = "egress_blocked"
    COMPENSATION = "compensation"
    RUN_FINISHED = "run_finished"
    LLM_CALL = "llm_call"


# Events that only record what happened and do not change the coordination state.
_INFORMATIONAL = frozenset(
    {
        EventType.CLAIMED,
        EventType.ACTION,
        EventType.EFFECT,
        EventType.POLICY_DECISION,
        EventType.RISK_DECISION,
        EventType.APPROVAL_REQUESTED,
        EventType.APPROVAL_DECIDED,
        EventType.EGRESS_BLOCKED,
        EventType.COMPENSATION,
        EventType.LLM_CALL,
    }
)


def initial_state(run_id: str, plan: TaskPlan) -> CoordinationState:
    return CoordinationState(run_id=run_id, plan=plan)


def apply_event(state: CoordinationState, event_type: str, payload: dict[str, Any]) -> CoordinationState:
    """Return the state after one event (a new object; the input is not changed)."""
    kind = EventType(event_type)
    if kind in _INFORMATIONAL:
        return state
    new = state.model_copy(deep=True)
    if kind is EventType.RUN_CREATED:
        return CoordinationState(run_id=state.run_id, plan=TaskPlan.model_validate(payload["plan"]))
    if kind is EventType.PLANNED:  # a goal run's first plan replaces its planning step (not a replan)
        new.plan = TaskPlan.model_validate(payload["plan"])
        return new
    if kind is EventType.REPLANNED:
        new.plan = TaskPlan.model_validate(payload["plan"])
        new.replan_count += 1
        new.status = TaskStatus.RUNNING
        return new
    if kind is EventType.RUN_FINISHED:
        new.status = TaskStatus(payload["status"])
        new.finished = True
        new.current = None
        new.last_error = payload.get("error")
        return new
    subtask = new.plan.subtask(payload["subtask_id"])
    if kind is EventType.SUBTASK_STARTED:
        subtask.status = SubTaskStatus.RUNNING
        subtask.attempts = int(payload.get("attempt", subtask.attempts + 1))
        new.current = subtask.subtask_id
        new.status = TaskStatus.RUNNING
    elif kind is EventType.SUBTASK_SUCCEEDED:
        subtask.status = SubTaskStatus.SUCCESS
        subtask.result_data = dict(payload.get("data", {}))
        subtask.error_message = None
        if subtask.subtask_id not in new.completed_subtasks:
            new.completed_subtasks.append(subtask.subtask_id)
        new.current = None
    elif kind is EventType.SUBTASK_FAILED:
        subtask.status = SubTaskStatus.FAILED
        subtask.error_message = payload.get("error")
        new.last_error = payload.get("error")
        new.current = None
    elif kind is EventType.SUBTASK_RETRY:
        subtask.status = SubTaskStatus.PENDING
    elif kind is EventType.SUBTASK_SKIPPED:
        subtask.status = SubTaskStatus.SKIPPED
        subtask.error_message = payload.get("reason")
        if subtask.subtask_id not in new.completed_subtasks:
            new.completed_subtasks.append(subtask.subtask_id)
        new.current = None
    elif kind is EventType.NEEDS_HUMAN:
        new.status = TaskStatus.NEEDS_HUMAN
        new.current = subtask.subtask_id
        new.last_error = payload.get("reason")
    elif kind is EventType.HUMAN_RESOLUTION:
        _apply_resolution(new, subtask.subtask_id, payload)
    return new


def _apply_resolution(state: CoordinationState, subtask_id: str, payload: dict[str, Any]) -> None:
    subtask = state.plan.subtask(subtask_id)
    action = payload["action"]
    state.current = None
    if action == "skip":
        subtask.status = SubTaskStatus.SKIPPED
        state.completed_subtasks.append(subtask_id)
        state.status = TaskStatus.RUNNING
    elif action == "mark_done":
        subtask.status = SubTaskStatus.SUCCESS
        subtask.result_data = {"marked_done_by": payload.get("user_id"), "note": payload.get("note", "")}
        state.completed_subtasks.append(subtask_id)
        state.status = TaskStatus.RUNNING
    elif action == "retry":
        subtask.status = SubTaskStatus.PENDING
        subtask.attempts = 0
        state.status = TaskStatus.RUNNING
    elif action == "abort":
        state.status = TaskStatus.ABORTED


def replay(run_id: str, events: Iterable[tuple[str, dict[str, Any]]]) -> CoordinationState:
    """Rebuild a run's state from its event log (the first event must be run_created)."""
    state: CoordinationState | None = None
    for event_type, payload in events:
        if state is None:
            if event_type != EventType.RUN_CREATED:
                raise ValueError(f"run {run_id}'s log does not start with run_created")
            state = CoordinationState(run_id=run_id, plan=TaskPlan.model_validate(payload["plan"]))
            continue
        state = apply_event(state, event_type, payload)
    if state is None:
        raise ValueError(f"run {run_id} has no events")
    return state
