"""The plan and coordination models of §C5: SubTask, TaskPlan, CoordinationState and the task statuses.

These are plain Pydantic models (not tables): the run's canonical record is its event log, from which the
CoordinationState checkpoint is rebuilt.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from finrpa.skills.base import ErrorStrategy, SideEffect


class TaskStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    WAITING_APPROVAL = "WAITING_APPROVAL"
    NEEDS_HUMAN = "NEEDS_HUMAN"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    ABORTED = "ABORTED"
    TIMEOUT = "TIMEOUT"

    @property
    def is_final(self) -> bool:
        return self in FINAL_STATUSES


FINAL_STATUSES = frozenset({TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.ABORTED, TaskStatus.TIMEOUT})


class SubTaskStatus(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"


class SkillCall(BaseModel):
    """What a skill-step SubTask runs: the skill, its (unresolved-secret) params and declared effect."""

    model_config = ConfigDict(frozen=True)

    skill: str
    params: dict[str, Any] = Field(default_factory=dict)
    side_effect: SideEffect = SideEffect.READ
    business_id: str | None = None
    compensation: str | None = None
    operation: str | None = None  # the business operation policies speak of; None: the skill's name


class SubTask(BaseModel):
    subtask_id: str
    index: int
    goal: str
    completion_condition: str = ""
    max_retries: int = 2
    failure_strategy: ErrorStrategy = ErrorStrategy.RETRY
    status: SubTaskStatus = SubTaskStatus.PENDING
    result_data: dict[str, Any] = Field(default_factory=dict)
    error_message: str | None = None
    depends_on: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)
    acceptance: str = ""
    skill_call: SkillCall | None = None
    attempts: int = 0


class TaskPlan(BaseModel):
    plan_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    navigation_goal: str
    subtasks: list[SubTask]
    is_replan: bool = False
    replan_reason: str | None = None
    version: int = 1
    template_id: str | None = None
    template_version: int | None = None

    def subtask(self, subtask_id: str) -> SubTask:
        for subtask in self.subtasks:
            if subtask.subtask_id == subtask_id:
                return subtask
        raise KeyError(subtask_id)


class CoordinationState(BaseModel):
    """Where a run stands: rebuilt from events on resume, checkpointed after every transition."""

    run_id: str
    plan: TaskPlan
    completed_subtasks: list[str] = Field(default_factory=list)
    current: str | None = None
    replan_count: int = 0
    status: TaskStatus = TaskStatus.PENDING
    last_error: str | None = None
    finished: bool = False  # a run_finished event was written


def stable_subtask_id(plan_key: str, step_id: str) -> str:
    """A subtask id that is the same every time the same plan is compiled (survives resume)."""
    return hashlib.sha256(f"{plan_key}:{step_id}".encode()).hexdigest()[:16]


def dependency_problems(subtasks: Sequence[SubTask]) -> list[str]:
    """Why ``subtasks`` are not a DAG, one sentence per problem (none: they are): a dependency on a step the plan
    does not have, a step that depends on itself, or a cycle. Steps are named by their step_id."""
    by_id = {subtask.subtask_id: subtask for subtask in subtasks}
    problems: list[str] = []
    for subtask in subtasks:
        for dependency in subtask.depends_on:
            if dependency == subtask.subtask_id:
                problems.append(f"Step {_name(subtask)!r} depends on itself; a step can only follow others.")
            elif dependency not in by_id:
                problems.append(f"Step {_name(subtask)!r} depends on {dependency!r}, which is no step of this plan.")
    cycle = _cycle(by_id)
    if cycle:
        names = " → ".join(repr(_name(by_id[subtask_id])) for subtask_id in cycle)
        problems.append(f"Steps {names} depend on each other in a cycle, so none of them could ever start.")
    return problems


def _cycle(by_id: dict[str, SubTask]) -> list[str]:
    """One dependency cycle (its subtask ids, the first repeated at the end), or [] for a DAG."""
    finished: set[str] = set()
    path: list[str] = []

    def visit(subtask_id: str) -> list[str]:
        if subtask_id in path:
            return [*path[path.index(subtask_id) :], subtask_id]
        if subtask_id in finished:
            return []
        path.append(subtask_id)
        for dependency in by_id[subtask_id].depends_on:
            if dependency in by_id and dependency != subtask_id and (found := visit(dependency)):
                return found
        path.pop()
        finished.add(subtask_id)
        return []

    for subtask_id in by_id:
        if found := visit(subtask_id):
            return found
    return []


def _name(subtask: SubTask) -> str:
    return str(subtask.inputs.get("step_id", subtask.subtask_id))
