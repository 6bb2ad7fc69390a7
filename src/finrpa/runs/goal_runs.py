"""Free-form goal runs on the durable run path (§C5, §C7).

A goal run is created with a one-step plan: the *planning step*, which holds the goal and the skills and
browser action kinds the creator may use. The runner executes it like any other step: the LLM planner turns
the goal into subtasks (compiled and checked in code), and a ``planned`` event replaces the one-step plan with
the planning step (done) followed by the planned subtasks, in the same commit as the step's success. Skill
subtasks then run through the normal executor (effect ledger, approval gate), browser goals through the LLM
loop; REPLAN goes back to the planner with the completed subtasks and the failure. A planner that gives no
usable plan after its retries leaves the run in NEEDS_HUMAN with the raw output and the errors, and a person's
"retry" plans again. Every LLM call is recorded in ``llm_calls`` with the run, department and tier.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from finrpa.agents.coordinator import ExecutionOutcome, SubtaskExecutor
from finrpa.agents.events import EventType
from finrpa.agents.llm_actions import BROWSER_ACTION_KINDS
from finrpa.agents.llm_executor import NEXT_ACTION_PROMPT_ID, LLMSubtaskExecutor
from finrpa.agents.llm_planner import AGENT_PROMPTS, PLAN_PROMPT_ID, REPLAN_PROMPT_ID, LLMPlanner, PlanningFailed
from finrpa.agents.plan import CoordinationState, SubTask, TaskPlan, stable_subtask_id
from finrpa.agents.plan_memory import PlanMemory
from finrpa.agents.plan_proposal import PlanningContext, PlanningScope
from finrpa.browser import Controller
from finrpa.cache import KeyValueStore
from finrpa.cache.factory import build_key_value_store
from finrpa.config import Settings
from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.llm import (
    ActionCache,
    CallContext,
    DatabaseDecisionSink,
    DatabaseUsageRecorder,
    LLMClient,
    LLMNotConfigured,
    ModelRouter,
)
from finrpa.policy.actions import BROWSER_ACTIONS, ActionGroup
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.repository import NewEvent
from finrpa.skills.base import SideEffect
from finrpa.skills.context import SecretResolver
from finrpa.skills.registry import get_skill, list_skills
from finrpa.tenancy.database import TenantDatabase

PLANNING_STEP = "plan"
_READ_ACTIONS = frozenset(
    spec.name for spec in BROWSER_ACTIONS if spec.groups <= {ActionGroup.READ, ActionGroup.EXPORT}
)
_GOAL_PROMPTS = (PLAN_PROMPT_ID, REPLAN_PROMPT_ID, NEXT_ACTION_PROMPT_ID)


def llm_configured(settings: Settings) -> bool:
    """True when ``FINRPA_LLM_PROVIDER`` names a provider (free-form goals are then planned by the LLM)."""
    return settings.llm_provider != "none"


@dataclass(frozen=True)
class GoalScope:
    """The skills and browser action kinds a goal run may use: what its creator may do, fixed at creation."""

    skills: frozenset[str]
    actions: frozenset[str]

    @classmethod
    def everything(cls) -> GoalScope:
        """A local operator at the command line: every registered skill and browser action kind."""
        return cls(frozenset(skill.skill_name for skill in list_skills()), frozenset(BROWSER_ACTION_KINDS))

    @classmethod
    def for_caller(cls, principal: Principal, dept_id: str | None, bl_id: str | None) -> GoalScope:
        """Operators get every skill and action; someone who may only read gets the read-only ones."""
        resource = Resource(principal.org_id, dept_id, bl_id, kind="task")
        if decide_permission(principal, Action.OPERATE, resource).allowed:
            return cls.everything()
        read_skills = {skill.skill_name for skill in list_skills() if skill.side_effect is SideEffect.READ}
        return cls(frozenset(read_skills), frozenset(BROWSER_ACTION_KINDS) & _READ_ACTIONS)

    def to_inputs(self) -> dict[str, list[str]]:
        return {"skills": sorted(self.skills), "actions": sorted(self.actions)}

    @classmethod
    def from_inputs(cls, value: Mapping[str, Any]) -> GoalScope:
        return cls(frozenset(value.get("skills", [])), frozenset(value.get("actions", [])))


def goal_plan(goal: str, scope: GoalScope) -> TaskPlan:
    """The plan a goal run starts with: the planning step only."""
    key = f"goal:{goal}"
    planning = SubTask(
        subtask_id=stable_subtask_id(key, PLANNING_STEP),
        index=0,
        goal=f"Plan the goal: {goal}",
        completion_condition="a plan that uses only the allowed skills and browser actions",
        max_retries=0,
        inputs={"step_id": PLANNING_STEP, "planning": scope.to_inputs()},
    )
    return TaskPlan(plan_id=stable_subtask_id(key, "plan"), navigation_goal=goal, subtasks=[planning])


def goal_versions(scope: GoalScope) -> dict[str, Any]:
    """Versions recorded on a goal run (a resumed run keeps them): the prompts, the skills it may use."""
    prompts = {name: AGENT_PROMPTS.load(name).version for name in _GOAL_PROMPTS}
    skills = {name: get_skill(name).version for name in sorted(scope.skills)}
    return {"template": None, "prompts": prompts, "skills": skills, "workflow_definition": 1}


def planning_step(plan: TaskPlan) -> SubTask | None:
    return next((subtask for subtask in plan.subtasks if is_planning_step(subtask)), None)


def is_planning_step(subtask: SubTask) -> bool:
    return (
        subtask.skill_call is None and subtask.inputs.get("step_id") == PLANNING_STEP and "planning" in subtask.inputs
    )


def is_goal_plan(plan: TaskPlan) -> bool:
    return plan.template_id is None and planning_step(plan) is not None


@dataclass
class GoalServices:
    """The LLM side of goal runs, shared by the runs of one process: client, router, caches, plan memory."""

    client: LLMClient
    store: KeyValueStore
    router: ModelRouter
    cache: ActionCache
    memory: PlanMemory | None  # None: every goal run asks the LLM for its plan

    @classmethod
    def from_settings(cls, settings: Settings, database: TenantDatabase) -> GoalServices:
        store = build_key_value_store(settings)
        return cls(
            client=LLMClient.from_settings(settings, DatabaseUsageRecorder(database.sessions)),
            store=store,
            router=ModelRouter.from_settings(settings, store, DatabaseDecisionSink(database.sessions)),
            cache=ActionCache(store),
            memory=PlanMemory(store),
        )

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.store.close()


@dataclass
class GoalRunExecutor:
    """The executor of a goal run: the planning step here, every other subtask through the LLM loop, which
    hands skill subtasks to the run's normal executor."""

    planner: LLMPlanner
    steps: SubtaskExecutor
    context: PlanningContext
    scope: GoalScope = field(default_factory=lambda: GoalScope(frozenset(), frozenset()))

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        if is_planning_step(subtask):
            return await self.plan(state, subtask)
        return await self.steps.execute(state, subtask)

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        return await self.steps.compensate(state, subtask)

    async def plan(self, state: CoordinationState, step: SubTask) -> ExecutionOutcome:
        goal = state.plan.navigation_goal
        try:
            plan = await self.planner.plan(
                goal, allowed_skills=self.scope.skills, allowed_actions=self.scope.actions, context=self.context
            )
        except PlanningFailed as exc:
            return _needs_person(exc.message, exc.code, raw_output=exc.raw_output, errors=exc.errors)
        except LLMNotConfigured as exc:
            return _needs_person(exc.message, exc.code, raw_output=None, errors=[])
        planned = _after(step, plan)
        event = NewEvent(EventType.PLANNED, {"plan": planned.model_dump(mode="json"), "subtask_id": step.subtask_id})
        data = {"plan_id": planned.plan_id, "subtasks": len(planned.subtasks) - 1, "planned_by": "llm"}
        return ExecutionOutcome(success=True, data=data, events=[event])


def _after(step: SubTask, plan: TaskPlan) -> TaskPlan:
    """The planning step followed by the planned subtasks (their roots depend on it)."""
    subtasks = [step.model_copy(deep=True)]
    for position, subtask in enumerate(plan.subtasks, start=1):
        depends_on = subtask.depends_on or [step.subtask_id]
        subtasks.append(subtask.model_copy(update={"index": position, "depends_on": depends_on}))
    return plan.model_copy(update={"subtasks": subtasks})


def _needs_person(message: str, code: str, *, raw_output: str | None, errors: list[str]) -> ExecutionOutcome:
    context = {"error_code": code, "llm_raw_output": raw_output, "llm_raw_outputs": [raw_output] if raw_output else []}
    context["llm_errors"] = errors[-20:]
    return ExecutionOutcome(success=False, error=message, error_code=code, needs_human=True, human_context=context)


def goal_executor(
    services: GoalServices,
    state: CoordinationState,
    *,
    call_context: CallContext,
    arguments: Mapping[str, Any],
    steps: SubtaskExecutor,
    browser: BrowserSession,
    recorder: EvidenceRecorder,
    secrets: SecretResolver | None,
) -> GoalRunExecutor:
    """The executor (and, as ``.planner``, the replanner) of one goal run, rebuilt the same way on resume."""
    step = planning_step(state.plan)
    scope = GoalScope.from_inputs(step.inputs["planning"]) if step is not None else GoalScope(frozenset(), frozenset())
    context = PlanningContext.from_arguments(arguments)
    planner = LLMPlanner(
        services.client,
        call_context,
        scope=PlanningScope.of(scope.skills, scope.actions, context),
        memory=services.memory,
    )

    async def controller() -> Controller:
        return (await browser.ensure())[1]

    loop = LLMSubtaskExecutor(
        services.client,
        services.router,
        call_context,
        controller,
        allowed_actions=scope.actions,
        cache=services.cache,
        secrets=secrets,
        skills=steps,
        evidence=recorder,
    )
    return GoalRunExecutor(planner, loop, context, scope)
