"""PlannerAgent: compiles a template into a TaskPlan; maps a goal to a template when no LLM is configured.

Free-form goals need an LLM planner (:mod:`finrpa.agents.llm_planner`); without one the planner says so
plainly instead of guessing.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from rapidfuzz import fuzz

from finrpa.agents.plan import CoordinationState, SkillCall, SubTask, TaskPlan, stable_subtask_id
from finrpa.exceptions import ValidationFailedError
from finrpa.skills.base import SideEffect
from finrpa.skills.registry import get_skill
from finrpa.workflows.binding import step_params
from finrpa.workflows.definitions import TemplateDefinition
from finrpa.workflows.mapping import resolve


class GoalNeedsLLMError(ValidationFailedError):
    code = "goal_needs_llm"


class ReplanPlanner(Protocol):
    """A planner that can plan the rest of a run after a failure (the LLM planner)."""

    async def replan(self, state: CoordinationState, failure: str) -> TaskPlan: ...


def compile_template(template: TemplateDefinition, arguments: dict[str, Any]) -> TaskPlan:
    """Turn a template and its bound arguments into a plan whose subtask ids are stable across resumes."""
    subtasks: list[SubTask] = []
    previous: str | None = None
    ids = {step.id: stable_subtask_id(template.key, step.id) for step in template.steps}
    for index, step in enumerate(template.steps):
        skill = get_skill(step.skill)
        side_effect = step.side_effect or skill.side_effect
        business = resolve(step.business_id, arguments) if step.business_id is not None else None
        depends_on = [ids[name] for name in step.depends_on] if step.depends_on is not None else []
        if step.depends_on is None and previous is not None:
            depends_on = [previous]
        subtask_id = ids[step.id]
        subtasks.append(
            SubTask(
                subtask_id=subtask_id,
                index=index,
                goal=step.name or f"{step.skill} ({step.id})",
                completion_condition=f"{step.skill} reports success with verified postconditions",
                max_retries=step.max_retries if step.max_retries is not None else skill.max_retries,
                failure_strategy=step.failure_strategy or skill.error_strategy,
                depends_on=depends_on,
                inputs={"step_id": step.id},
                skill_call=SkillCall(
                    skill=step.skill,
                    params=step_params(template, index, arguments),
                    side_effect=side_effect,
                    business_id=_business_id(business),
                    compensation=step.compensation or skill.compensation,
                    operation=step.operation,
                ),
            )
        )
        previous = subtask_id
    return TaskPlan(
        plan_id=stable_subtask_id(template.key, "plan"),
        navigation_goal=template.description or template.name,
        subtasks=subtasks,
        template_id=template.id,
        template_version=template.version,
    )


def _business_id(value: Any) -> str | None:
    """A step's business id; a list of parts (e.g. ID number, product, date) is joined with '|'."""
    if value in (None, "", []):
        return None
    if isinstance(value, list):
        return "|".join(str(part) for part in value)
    return str(value)


def writes_in(plan: TaskPlan) -> list[SubTask]:
    """The subtasks that change a portal (they go through the effect ledger)."""
    return [
        subtask
        for subtask in plan.subtasks
        if subtask.skill_call is not None and subtask.skill_call.side_effect is not SideEffect.READ
    ]


_WORD = re.compile(r"[\w\u4e00-\u9fff]+")


def match_goal_to_template(goal: str, templates: dict[str, TemplateDefinition]) -> TemplateDefinition:
    """Without an LLM, a goal can only choose a template whose name or description it clearly names."""
    scored = sorted(((_score(goal, template), template.id) for template in templates.values()), reverse=True)
    if scored and scored[0][0] >= 70 and (len(scored) == 1 or scored[0][0] - scored[1][0] >= 10):
        return templates[scored[0][1]]
    raise GoalNeedsLLMError(
        f"No LLM is configured, and the goal {goal!r} does not clearly name one template "
        f"({', '.join(sorted(templates))}). Start a template directly, or configure an LLM "
        "(FINRPA_LLM_PROVIDER, FINRPA_LLM_BASE_URL, FINRPA_LLM_API_KEY) to plan free-form goals."
    )


def _score(goal: str, template: TemplateDefinition) -> float:
    names = [template.name, template.name_en, template.id.replace("_", " ")]
    return max(fuzz.token_set_ratio(goal.lower(), name.lower()) for name in names if name)
