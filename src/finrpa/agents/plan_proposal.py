"""A plan as the LLM proposes it, and the trusted compiler that turns it into SubTasks — or says why not.

The LLM's plan is an untrusted request. :func:`compile_proposal` accepts a step only when its skill is one
the caller may use and its params validate against that skill's ``params_model``, or — for a browser goal —
when it has a completion condition and asks only for browser action kinds the caller allows. Values come
from the run's parameters (``{{name}}``) and secrets (``{{secret:name}}``, turned into their ``secret://``
reference, never a value), or are plain values the goal states; a skill's sensitive params must be secret
references. Every rule broken is reported as one sentence; nothing of a rejected plan is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from finrpa.agents.completion import CompletionCondition
from finrpa.agents.llm_actions import BROWSER_ACTION_KINDS, DEFAULT_MAX_STEPS, NAME, PLACEHOLDER
from finrpa.agents.plan import SkillCall, SubTask
from finrpa.exceptions import NotFoundError
from finrpa.skills.base import BaseSkill, ErrorStrategy, SideEffect
from finrpa.skills.context import SECRET_SCHEME
from finrpa.skills.registry import get_skill

_STEP_ID = r"^[a-z][a-z0-9_]{0,39}$"
_EMBEDDED = re.compile(r"\{\{\s*(secret:)?([A-Za-z_][A-Za-z0-9_.]{0,63})\s*\}\}")
_SIDE_EFFECT_ORDER = [SideEffect.READ, SideEffect.WRITE, SideEffect.IRREVERSIBLE]
MAX_STEP_BUDGET = 60


class PlannedStep(BaseModel):
    """One step of an LLM plan: a skill call, or a browser goal with a completion condition."""

    model_config = ConfigDict(extra="forbid")

    step_id: str = Field(pattern=_STEP_ID, description="Short unique id, e.g. open_statement.")
    goal: str = Field(min_length=1, max_length=300, description="What the step achieves, in a sentence.")
    skill: str | None = Field(default=None, description="A skill call: the skill's name.")
    params: dict[str, Any] = Field(default_factory=dict, description="A skill call: its params.")
    completion: CompletionCondition | None = Field(default=None, description="A browser goal: when it is reached.")
    actions: list[str] = Field(default_factory=list, description="A browser goal: the action kinds it needs.")
    inputs: dict[str, str] = Field(
        default_factory=dict, description="A browser goal: input name -> {{parameter}}, {{secret:name}} or a value."
    )
    max_steps: int | None = Field(default=None, ge=1, le=MAX_STEP_BUDGET, description="A browser goal: step budget.")
    depends_on: list[str] | None = Field(default=None, description="Earlier step_ids this step needs.")
    failure_strategy: ErrorStrategy | None = None
    max_retries: int | None = Field(default=None, ge=0, le=3)
    side_effect: SideEffect | None = Field(default=None, description="A skill call: read, write or irreversible.")
    acceptance: str = Field(default="", max_length=300)

    @model_validator(mode="after")
    def _one_kind(self) -> PlannedStep:
        if self.skill is None and self.completion is None:
            raise ValueError("a step needs either a skill or a completion condition")
        return self


class PlanProposal(BaseModel):
    """The LLM's answer to the planning prompts."""

    model_config = ConfigDict(extra="forbid")

    steps: list[PlannedStep] = Field(min_length=1, max_length=30)


class PlanningContext(BaseModel):
    """What the planner may refer to: parameter values, and secrets by reference only."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    parameters: dict[str, str] = Field(default_factory=dict, description="Name -> value (nothing secret).")
    secrets: dict[str, str] = Field(default_factory=dict, description="Name -> secret://… reference.")
    descriptions: dict[str, str] = Field(default_factory=dict, description="Name -> what it is, for the planner.")
    notes: str = Field(default="", max_length=2000)

    @model_validator(mode="after")
    def _checked(self) -> PlanningContext:
        for name in [*self.parameters, *self.secrets]:
            if not NAME.match(name):
                raise ValueError(f"parameter name {name!r} must be letters, digits, '_' or '.'")
        for name, reference in self.secrets.items():
            if not reference.startswith(SECRET_SCHEME):
                raise ValueError(f"secret {name!r} must be a secret:// reference, never a value")
        if set(self.parameters) & set(self.secrets):
            raise ValueError("a name is either a parameter or a secret, not both")
        return self

    @classmethod
    def from_arguments(
        cls, arguments: Mapping[str, Any], descriptions: Mapping[str, str] | None = None
    ) -> PlanningContext:
        """A context from run arguments: ``secret://`` values become secrets (by reference), the rest values."""
        secret = {name: str(v) for name, v in arguments.items() if str(v).startswith(SECRET_SCHEME)}
        plain = {name: str(v) for name, v in arguments.items() if name not in secret and v is not None}
        return cls(parameters=plain, secrets=secret, descriptions=dict(descriptions or {}))

    def describe(self) -> str:
        """The parameters as the prompt shows them (secret values are never known here)."""
        lines = [f"- {{{{{n}}}}} = {v}{self._about(n)}" for n, v in self.parameters.items()]
        lines += [f"- {{{{secret:{n}}}}} (secret){self._about(n)}" for n in self.secrets]
        return "\n".join(lines) or "(none)"

    def _about(self, name: str) -> str:
        about = self.descriptions.get(name)
        return f" — {about}" if about else ""


@dataclass(frozen=True)
class PlanningScope:
    """What a plan may use: the caller's skills and browser action kinds, and the run's parameters."""

    allowed_skills: frozenset[str]
    allowed_actions: frozenset[str]
    context: PlanningContext = field(default_factory=PlanningContext)

    @classmethod
    def of(cls, skills: Collection[str], actions: Collection[str], context: PlanningContext) -> PlanningScope:
        unknown = set(actions) - set(BROWSER_ACTION_KINDS)
        if unknown:
            raise ValueError(f"Unknown browser action kinds {sorted(unknown)}; use {', '.join(BROWSER_ACTION_KINDS)}.")
        return cls(frozenset(skills), frozenset(actions), context)


@dataclass
class _Compiler:
    scope: PlanningScope
    subtask_id: Callable[[str], str]
    known: Mapping[str, str]  # step_id -> subtask_id of steps that already exist (kept by a replan)
    index_offset: int
    problems: list[str] = field(default_factory=list)

    def compile(self, proposal: PlanProposal) -> list[SubTask]:
        ids: dict[str, str] = {}
        subtasks: list[SubTask] = []
        previous: str | None = None
        for position, step in enumerate(proposal.steps):
            if step.step_id in ids or step.step_id in self.known:
                self.problems.append(f"step_id {step.step_id!r} is used twice; give every step its own id.")
                continue
            depends_on = self._dependencies(step, ids, previous)
            subtask = self._subtask(step, self.index_offset + position, depends_on)
            ids[step.step_id] = subtask.subtask_id
            subtasks.append(subtask)
            previous = subtask.subtask_id
        return subtasks

    def _dependencies(self, step: PlannedStep, ids: Mapping[str, str], previous: str | None) -> list[str]:
        if step.depends_on is None:
            return [previous] if previous else []
        found: list[str] = []
        for name in step.depends_on:
            subtask_id = ids.get(name) or self.known.get(name)
            if subtask_id is None:
                self.problems.append(f"Step {step.step_id!r} depends on {name!r}, which is not an earlier step.")
            else:
                found.append(subtask_id)
        return found

    def _subtask(self, step: PlannedStep, index: int, depends_on: list[str]) -> SubTask:
        common: dict[str, Any] = {
            "subtask_id": self.subtask_id(step.step_id),
            "index": index,
            "goal": step.goal,
            "depends_on": depends_on,
            "acceptance": step.acceptance,
        }
        if step.skill is not None:
            return self._skill_subtask(step, common)
        return self._goal_subtask(step, common)

    def _skill_subtask(self, step: PlannedStep, common: dict[str, Any]) -> SubTask:
        skill = self._skill(step)
        params = self._params(step, skill) if skill is not None else {}
        call = SkillCall(skill=step.skill or "", params=params, side_effect=_side_effect(skill, step.side_effect))
        return SubTask(
            **common,
            completion_condition=f"{step.skill} reports success with verified postconditions",
            max_retries=step.max_retries if step.max_retries is not None else (skill.max_retries if skill else 1),
            failure_strategy=step.failure_strategy or (skill.error_strategy if skill else ErrorStrategy.RETRY),
            inputs={"step_id": step.step_id},
            skill_call=call,
        )

    def _skill(self, step: PlannedStep) -> type[BaseSkill[Any]] | None:
        if step.skill not in self.scope.allowed_skills:
            allowed = ", ".join(sorted(self.scope.allowed_skills)) or "none"
            self.problems.append(f"Step {step.step_id!r} uses skill {step.skill!r}, which is not allowed ({allowed}).")
            return None
        try:
            return get_skill(step.skill)
        except NotFoundError:
            self.problems.append(f"Step {step.step_id!r} uses skill {step.skill!r}, which does not exist.")
            return None

    def _params(self, step: PlannedStep, skill: type[BaseSkill[Any]]) -> dict[str, Any]:
        params = {name: self._substitute(step.step_id, value) for name, value in step.params.items()}
        for name in skill.sensitive_params:
            value = params.get(name)
            if value is not None and not (isinstance(value, str) and value in self.scope.context.secrets.values()):
                self.problems.append(
                    f"Step {step.step_id!r}: {skill.skill_name}.{name} is sensitive; "
                    "give a {{secret:…}} placeholder."
                )
        try:
            skill.params_model.model_validate(params)
        except ValidationError as exc:
            for error in exc.errors()[:5]:
                where = ".".join(str(part) for part in error["loc"])
                self.problems.append(f"Step {step.step_id!r}: {skill.skill_name} param {where}: {error['msg']}.")
        return params

    def _substitute(self, step_id: str, value: Any) -> Any:
        """Placeholders replaced in strings, lists and dicts; an unknown name or embedded secret is a problem."""
        if isinstance(value, dict):
            return {key: self._substitute(step_id, item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._substitute(step_id, item) for item in value]
        if not isinstance(value, str):
            return value
        whole = PLACEHOLDER.match(value.strip())
        if whole is not None:
            return self._lookup(step_id, whole.group(2), secret=whole.group(1) is not None)
        if value.startswith(SECRET_SCHEME) and value not in self.scope.context.secrets.values():
            self.problems.append(
                f"Step {step_id!r} names an unknown secret reference; use a {{{{secret:…}}}} placeholder."
            )
        return _EMBEDDED.sub(lambda match: self._embedded(step_id, match), value)

    def _embedded(self, step_id: str, match: re.Match[str]) -> str:
        if match.group(1) is not None:
            self.problems.append(
                f"Step {step_id!r} puts a secret inside other text; a secret must be a value of its own."
            )
            return ""
        return str(self._lookup(step_id, match.group(2), secret=False) or "")

    def _lookup(self, step_id: str, name: str, *, secret: bool) -> str | None:
        table = self.scope.context.secrets if secret else self.scope.context.parameters
        if name not in table:
            kind = "secret" if secret else "parameter"
            self.problems.append(f"Step {step_id!r} refers to {kind} {name!r}, which the run does not have.")
            return None
        return table[name]

    def _goal_subtask(self, step: PlannedStep, common: dict[str, Any]) -> SubTask:
        assert step.completion is not None
        if step.params:
            self.problems.append(f"Step {step.step_id!r} is a browser goal; only skill steps take params.")
        actions = self._actions(step)
        values, secrets = self._inputs(step)
        return SubTask(
            **common,
            completion_condition=step.completion.render(),
            max_retries=step.max_retries if step.max_retries is not None else 1,
            failure_strategy=step.failure_strategy or ErrorStrategy.RETRY,
            inputs={
                "step_id": step.step_id,
                "values": values,
                "secrets": secrets,
                "allowed_actions": actions,
                "max_steps": step.max_steps or DEFAULT_MAX_STEPS,
            },
        )

    def _actions(self, step: PlannedStep) -> list[str]:
        if not step.actions:
            self.problems.append(f"Step {step.step_id!r} is a browser goal; list the action kinds it needs.")
        refused = [kind for kind in step.actions if kind not in self.scope.allowed_actions]
        if refused:
            allowed = ", ".join(sorted(self.scope.allowed_actions)) or "none"
            self.problems.append(
                f"Step {step.step_id!r} asks for actions {refused}, which are not allowed ({allowed})."
            )
        return sorted(set(step.actions) - set(refused))

    def _inputs(self, step: PlannedStep) -> tuple[dict[str, str], dict[str, str]]:
        values: dict[str, str] = {}
        secrets: dict[str, str] = {}
        for name, raw in step.inputs.items():
            if not NAME.match(name):
                self.problems.append(f"Step {step.step_id!r}: input name {name!r} must be letters, digits or '_'.")
                continue
            whole = PLACEHOLDER.match(raw.strip())
            if whole is not None and whole.group(1) is not None:
                reference = self._lookup(step.step_id, whole.group(2), secret=True)
                if reference is not None:
                    secrets[name] = reference
                continue
            value = self._substitute(step.step_id, raw)
            if isinstance(value, str):
                values[name] = value
        return values, secrets


def compile_proposal(
    proposal: PlanProposal,
    scope: PlanningScope,
    *,
    subtask_id: Callable[[str], str],
    known: Mapping[str, str] | None = None,
    index_offset: int = 0,
) -> tuple[list[SubTask], list[str]]:
    """SubTasks for an acceptable proposal, and the sentence for every rule it breaks (use none if any)."""
    compiler = _Compiler(scope, subtask_id, known or {}, index_offset)
    subtasks = compiler.compile(proposal)
    return subtasks, compiler.problems


def _side_effect(skill: type[BaseSkill[Any]] | None, declared: SideEffect | None) -> SideEffect:
    """The stricter of the skill's own side effect and the plan's; a step-declared skill (a form that may
    submit a payment) counts as a write, because a model's "read" is not trusted to lower it."""
    floor = SideEffect.READ if skill is None else skill.side_effect
    if skill is not None and skill.side_effect_declared_by_step:
        floor = max(floor, SideEffect.WRITE, key=_SIDE_EFFECT_ORDER.index)
    return max(floor, declared or SideEffect.READ, key=_SIDE_EFFECT_ORDER.index)
