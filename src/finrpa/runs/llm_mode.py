"""A template in LLM mode: the template is the plan, and the LLM executor drives the portal (§C4, §C5, §C7).

``finrpa run TEMPLATE --mode llm`` (or ``mode: llm`` when a task is created) compiles the template into the
plan of a goal run whose planning step is already settled by the template, so no planner call is made:

* a step that *operates the portal up to a result* — a read form (FormFillSkill with side effect read, e.g.
  the statement query) — becomes a browser goal for the LLM loop (observe → propose → validate → act →
  verify): open the page by the visible names the template gives, fill the fields with the template's
  parameters (the subtask's inputs, typed from ``{{name}}`` placeholders) and submit; its completion is checked
  in code (the result table the next step reads is shown);
* a step that changes a portal, exports, searches-and-selects or otherwise needs a skill's verification keeps
  its skill under the effect ledger, the run's policy and the approval gate — exactly as in template mode, with
  the same business id, so a payment is one effect whichever mode started it — and the LLM loop first brings
  the browser to that step's page (a browser goal "open 「对公付款」", checked in code by the step's submit or
  search button being shown);
* login (credentials, captcha, one-time passwords, lockout rules) and data extraction (paging through a table
  into a CSV) stay skills: the LLM never types a password and never returns extracted data.

Warm runs replay the verified decisions of the action cache, so a repeated template run in LLM mode makes few or
no LLM calls. Completion conditions use the template's labels and are checked as the resolver reads labels
(synonyms, case, spacing; see finrpa.agents.completion), so they hold on a portal that renames them (the sandbox's
layout v2: 「检索」 for 查询, 「下一步」 for 提交, the caption 「账户交易明细」 for 交易明细). A date the LLM fills
into a read-only picker field (layout v2's statement form) goes through the picker inside the controller's Fill.
"""

from __future__ import annotations

from typing import Any

from finrpa.agents.plan import SubTask, SubTaskStatus, TaskPlan, stable_subtask_id
from finrpa.agents.planner import compile_template
from finrpa.runs.goal_runs import PLANNING_STEP, GoalScope
from finrpa.skills.base import SideEffect
from finrpa.skills.context import SECRET_SCHEME
from finrpa.workflows.definitions import SkillStepDefinition, TemplateDefinition
from finrpa.workflows.mapping import LITERAL_PREFIX

LLM_MODE = "llm"
SKILL_MODE = "skills"
RUN_MODES = (SKILL_MODE, LLM_MODE)
NAVIGATION_ACTIONS = ("click", "dismiss_dialog")
FORM_ACTIONS = ("click", "fill", "select", "press", "dismiss_dialog")
_TABLE_SKILLS = frozenset({"PaginationSkill", "TableExtractSkill"})
_NAVIGATION_STEPS = 8
_FORM_STEPS = 20


def llm_mode_scope(template: TemplateDefinition) -> GoalScope:
    """What an LLM-mode run may use (a replan too): the template's skills, and browser actions limited to
    navigating and filling forms (no downloads and no typed URLs by the LLM)."""
    return GoalScope(frozenset(step.skill for step in template.steps), frozenset(FORM_ACTIONS))


def compile_llm_mode(template: TemplateDefinition, arguments: dict[str, Any]) -> TaskPlan:
    """The template's plan in LLM mode (subtask ids stable across resumes, skill steps' ids as in template
    mode)."""
    skill_plan = compile_template(template, arguments)
    key = f"{template.key}:{LLM_MODE}"
    subtasks: list[SubTask] = [_settled_planning_step(template, key)]
    for index, (step, compiled) in enumerate(zip(template.steps, skill_plan.subtasks, strict=True)):
        following = template.steps[index + 1] if index + 1 < len(template.steps) else None
        subtasks.extend(_llm_mode_steps(key, step, compiled, following))
    for position, subtask in enumerate(subtasks):
        subtask.index = position
        subtask.depends_on = [subtasks[position - 1].subtask_id] if position else []
    return TaskPlan(
        plan_id=stable_subtask_id(key, "plan"),
        navigation_goal=template.description or template.name,
        subtasks=subtasks,
    )


def _settled_planning_step(template: TemplateDefinition, key: str) -> SubTask:
    scope = llm_mode_scope(template)
    return SubTask(
        subtask_id=stable_subtask_id(key, PLANNING_STEP),
        index=0,
        goal=f"Plan: the template {template.id} v{template.version}, run in LLM mode",
        completion_condition="the template is the plan",
        max_retries=0,
        status=SubTaskStatus.SUCCESS,
        inputs={"step_id": PLANNING_STEP, "planning": scope.to_inputs(), "template_id": template.id},
        result_data={"planned_by": "template", "template_id": template.id, "template_version": template.version},
    )


def _llm_mode_steps(
    key: str, step: SkillStepDefinition, compiled: SubTask, following: SkillStepDefinition | None
) -> list[SubTask]:
    call = compiled.skill_call
    assert call is not None
    params = call.params
    table = _table_read_by(following)
    if step.skill == "FormFillSkill" and call.side_effect is SideEffect.READ and params.get("submit") and table:
        return [_form_goal(key, step, compiled, table)]
    navigate_to = [str(label) for label in params.get("navigate_to") or []]
    landmark = params.get("submit") or params.get("search_button")
    if navigate_to and landmark:
        return [_navigation_goal(key, step, navigate_to, str(landmark)), compiled]
    return [compiled]


def _table_read_by(step: SkillStepDefinition | None) -> str | None:
    if step is None or step.skill not in _TABLE_SKILLS:
        return None
    table = step.params.get("table")
    if isinstance(table, str) and table.startswith(LITERAL_PREFIX):
        return table[len(LITERAL_PREFIX) :]
    return None


def _navigation_goal(key: str, step: SkillStepDefinition, labels: list[str], landmark: str) -> SubTask:
    path = " → ".join(f"「{label}」" for label in labels)
    return SubTask(
        subtask_id=stable_subtask_id(key, f"{step.id}.open"),
        index=0,
        goal=f"打开{path}页面（{step.name or step.id}）",
        completion_condition=f"element_visible: [button] {landmark}",
        max_retries=1,
        inputs={
            "step_id": f"{step.id}.open",
            "allowed_actions": list(NAVIGATION_ACTIONS),
            "max_steps": _NAVIGATION_STEPS,
            "template_step": step.id,
        },
    )


def _form_goal(key: str, step: SkillStepDefinition, compiled: SubTask, table: str) -> SubTask:
    """A read form as a browser goal: its fields' values become the subtask's inputs, named after the
    template parameters they come from."""
    call = compiled.skill_call
    assert call is not None
    params = call.params
    raw_fields = step.params.get("fields")
    references = raw_fields if isinstance(raw_fields, dict) else {}
    values: dict[str, str] = {}
    secrets: dict[str, str] = {}
    wanted: list[str] = []
    for position, (label, value) in enumerate(dict(params.get("fields") or {}).items()):
        reference = references.get(label)
        name = reference if isinstance(reference, str) and not reference.startswith(LITERAL_PREFIX) else None
        name = name or f"field_{position + 1}"
        if str(value).startswith(SECRET_SCHEME):  # a sensitive parameter: typed from the vault, never shown
            secrets[name] = str(value)
            wanted.append(f"「{label}」填 {{{{secret:{name}}}}}")
        else:
            values[name] = str(value)
            wanted.append(f"「{label}」填 {{{{{name}}}}}")
    labels = [str(label) for label in params.get("navigate_to") or []]
    opening = f"打开{' → '.join(f'「{label}」' for label in labels)}页面，" if labels else ""
    goal = f"{opening}{'，'.join(wanted)}，然后点击「{params['submit']}」（{step.name or step.id}）"
    return SubTask(
        subtask_id=stable_subtask_id(key, step.id),
        index=0,
        goal=goal,
        completion_condition=f"table_visible: {table}",
        max_retries=compiled.max_retries,
        inputs={
            "step_id": step.id,
            "values": values,
            "secrets": secrets,
            "allowed_actions": list(FORM_ACTIONS),
            "max_steps": _FORM_STEPS,
            "template_step": step.id,
        },
    )
