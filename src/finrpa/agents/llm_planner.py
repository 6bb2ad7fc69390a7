"""LLMPlanner: free-form goals → TaskPlan by LLM structured output, and replanning after a failure (§C5).

``plan(goal, allowed_skills=, allowed_actions=, context=)`` asks for a :class:`PlanProposal` with the
versioned ``agents.plan_goal`` prompt and compiles it with the trusted compiler of
:mod:`finrpa.agents.plan_proposal`: a skill the caller may not use, params that fail the skill's
``params_model``, a browser action kind outside ``allowed_actions``, an unknown parameter, a literal where a
secret belongs, and ``depends_on`` that names no earlier step or closes a cycle are rejected by code (a plan is
a DAG whose independent branches may run at the same time). The broken rules are sent back once for a corrected
plan; a plan that still breaks them raises :class:`PlanningFailed` (with the raw output and every error), as
does an LLM that gives no usable answer. Subtask ids are stable: a hash of the plan key and the step id.

``replan(state, failure)`` (the coordinator's ReplanPlanner) sends the completed subtasks and the failure
and plans only the rest: completed subtasks are kept verbatim, ids and results included; new subtasks get
ids of the next plan version. Without a configured LLM both raise LLMNotConfigured: free-form goals need one.

With a :class:`~finrpa.agents.plan_memory.PlanMemory`, a proposal that compiled is remembered per
organisation, goal and scope and reused (compiled again, so still checked) instead of asking the LLM; a plan
that needed replanning is forgotten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Sequence
from functools import partial

from finrpa.agents.plan import (
    CoordinationState,
    SubTask,
    SubTaskStatus,
    TaskPlan,
    dependency_problems,
    stable_subtask_id,
)
from finrpa.agents.plan_memory import PlanMemory
from finrpa.agents.plan_proposal import PlanningContext, PlanningScope, PlanProposal, compile_proposal
from finrpa.exceptions import FinRPAError, NotFoundError
from finrpa.kit.jsonschema import flat_json_schema
from finrpa.llm import CallContext, LLMClient, LLMNotConfigured, PromptLibrary, PromptTemplate, Tier, Untrusted
from finrpa.llm.prompts import PromptValue
from finrpa.skills.registry import get_skill

AGENT_PROMPTS = PromptLibrary.for_package("finrpa.agents")
PLAN_PROMPT_ID = "agents.plan_goal"
REPLAN_PROMPT_ID = "agents.replan"
_RAW_EXCERPT = 4000


class PlanningFailed(FinRPAError):
    """The LLM produced no plan FinRPA can run; ``raw_output`` and ``errors`` are kept for a person."""

    code = "plan_failed"
    http_status = 422

    def __init__(self, message: str, *, raw_output: str | None, errors: list[str]) -> None:
        super().__init__(message)
        self.raw_output = raw_output[:_RAW_EXCERPT] if raw_output else raw_output
        self.errors = list(errors)


class LLMPlanner:
    """Plans goals with the LLM; one instance per run (it remembers the run's scope for replanning)."""

    def __init__(
        self,
        client: LLMClient,
        call_context: CallContext,
        *,
        scope: PlanningScope | None = None,
        tier: Tier = Tier.STANDARD,
        attempts: int = 2,
        memory: PlanMemory | None = None,
        prompts: PromptLibrary = AGENT_PROMPTS,
    ) -> None:
        self.client = client
        self.call_context = call_context
        self.scope = scope
        self.tier = tier
        self.attempts = max(1, attempts)
        self.memory = memory
        self._prompts = prompts

    async def plan(
        self,
        goal: str,
        *,
        allowed_skills: Collection[str],
        allowed_actions: Collection[str],
        context: PlanningContext,
    ) -> TaskPlan:
        """A plan for ``goal`` that uses only the given skills and browser action kinds."""
        self._require_llm()
        scope = PlanningScope.of(allowed_skills, allowed_actions, context)
        self.scope = scope
        prompt = self._prompts.load(PLAN_PROMPT_ID)

        def key_for(proposal: PlanProposal) -> str:
            digest = hashlib.sha256(f"{goal}\n{proposal.model_dump_json()}".encode()).hexdigest()[:20]
            return f"llm:{digest}"

        remembered = await self._recall(goal, scope, prompt, key_for)
        if remembered is not None:
            key, subtasks = remembered
        else:
            variables: dict[str, PromptValue] = {"goal": goal, "notes": context.notes or "none", **_offer(scope)}
            key, subtasks = await self._ask(prompt, variables, scope, key_for, (), 0)
        return TaskPlan(plan_id=stable_subtask_id(key, "plan"), navigation_goal=goal, subtasks=subtasks)

    async def _recall(
        self, goal: str, scope: PlanningScope, prompt: PromptTemplate, key_for: Callable[[PlanProposal], str]
    ) -> tuple[str, list[SubTask]] | None:
        """A remembered proposal for this goal and scope that still compiles, as (plan key, subtasks)."""
        if self.memory is None:
            return None
        memory_key = self.memory.key(self.call_context.org_id, goal, scope, prompt)
        proposal = await self.memory.recall(memory_key)
        if proposal is None:
            return None
        key = key_for(proposal)
        subtasks, problems = compile_proposal(proposal, scope, subtask_id=partial(stable_subtask_id, key))
        if problems:
            await self.memory.forget(memory_key)
            return None
        await self.client.record_cache_hit(prompt, tier=self.tier, context=self.call_context)
        return key, subtasks

    async def replan(self, state: CoordinationState, failure: str) -> TaskPlan:
        """The completed subtasks as they are, plus a new plan for the rest of the goal."""
        self._require_llm()
        if self.scope is None:
            raise PlanningFailed(
                "This planner does not know the run's allowed skills, actions and parameters; create it with "
                "scope=PlanningScope.of(...) to replan.",
                raw_output=None,
                errors=[],
            )
        plan = state.plan
        if self.memory is not None:  # the remembered plan for this goal did not work out
            plan_prompt = self._prompts.load(PLAN_PROMPT_ID)
            await self.memory.forget(
                self.memory.key(self.call_context.org_id, plan.navigation_goal, self.scope, plan_prompt)
            )
        done = set(state.completed_subtasks)
        kept = [subtask.model_copy(deep=True) for subtask in plan.subtasks if subtask.subtask_id in done]
        rest = [subtask for subtask in plan.subtasks if subtask.subtask_id not in done]
        failed = [subtask for subtask in rest if subtask.status is SubTaskStatus.FAILED]
        variables: dict[str, PromptValue] = {
            "goal": plan.navigation_goal,
            "completed": _lines(kept) or "(none)",
            "failed": failed[-1].goal if failed else "(not known)",
            "failure": Untrusted(failure, "failure"),
            "remaining": _lines(rest) or "(none)",
            **_offer(self.scope),
        }
        offset = max((subtask.index for subtask in kept), default=-1) + 1
        version = plan.version + 1
        prompt = self._prompts.load(REPLAN_PROMPT_ID)
        _, new = await self._ask(prompt, variables, self.scope, lambda _: f"{plan.plan_id}:v{version}", kept, offset)
        return TaskPlan(
            plan_id=plan.plan_id,
            navigation_goal=plan.navigation_goal,
            subtasks=[*kept, *new],
            is_replan=True,
            replan_reason=failure[:500],
            version=version,
            template_id=plan.template_id,
            template_version=plan.template_version,
        )

    async def _ask(
        self,
        prompt: PromptTemplate,
        variables: dict[str, PromptValue],
        scope: PlanningScope,
        key_for: Callable[[PlanProposal], str],
        kept: Sequence[SubTask],
        offset: int,
    ) -> tuple[str, list[SubTask]]:
        """Ask, compile, and ask once more with the broken rules; (plan key, subtasks) or PlanningFailed. The
        subtasks (with ``kept``, the completed ones a replan keeps) must form a DAG: a dependency on an unknown
        step or a cycle is a broken rule like any other."""
        known = {str(subtask.inputs.get("step_id", subtask.subtask_id)): subtask.subtask_id for subtask in kept}
        problems: list[str] = []
        raw: str | None = None
        for _ in range(self.attempts):
            asked = {**variables, "violations": _bullets(problems)}
            result = await self.client.call_structured(
                prompt, PlanProposal, tier=self.tier, context=self.call_context, variables=asked
            )
            if result.data is None:
                raise PlanningFailed(
                    f"The LLM gave no usable plan after {result.attempts} attempt(s): {'; '.join(result.errors)}. "
                    "Try again later, or start a template.",
                    raw_output=result.raw_response,
                    errors=result.errors,
                )
            raw = result.raw_response
            key = key_for(result.data)
            subtasks, problems = compile_proposal(
                result.data,
                scope,
                subtask_id=partial(stable_subtask_id, key),
                known=known,
                index_offset=offset,
            )
            problems = problems or dependency_problems([*kept, *subtasks])
            if not problems:
                await self._remember(prompt, scope, variables, result.data)
                return key, subtasks
        raise PlanningFailed(
            f"The LLM's plan broke FinRPA's rules after {self.attempts} attempt(s): {' '.join(problems)} "
            "Rephrase the goal, or start a template.",
            raw_output=raw,
            errors=problems,
        )

    async def _remember(
        self, prompt: PromptTemplate, scope: PlanningScope, variables: dict[str, PromptValue], proposal: PlanProposal
    ) -> None:
        if self.memory is None or prompt.id != PLAN_PROMPT_ID:
            return  # replans are specific to one failure: only first plans are reused
        goal = str(variables["goal"])
        await self.memory.remember(self.memory.key(self.call_context.org_id, goal, scope, prompt), proposal)

    def _require_llm(self) -> None:
        if not self.client.configured:
            raise LLMNotConfigured()


def _offer(scope: PlanningScope) -> dict[str, PromptValue]:
    """The prompt variables that say what a plan may use."""
    actions = ", ".join(sorted(scope.allowed_actions)) or "none (plan skill calls only)"
    return {"parameters": scope.context.describe(), "skills": _skills(scope.allowed_skills), "actions": actions}


def _skills(names: Collection[str]) -> str:
    lines: list[str] = []
    for name in sorted(names):
        try:
            skill = get_skill(name)
        except NotFoundError:
            continue  # a grant for a skill this installation does not have offers nothing
        schema = json.dumps(flat_json_schema(skill.params_model), ensure_ascii=False, separators=(",", ":"))
        lines.append(f"- {name} ({skill.side_effect.value}): {skill.description}\n  params schema: {schema}")
    return "\n".join(lines) or "(none: plan browser goals only)"


def _lines(subtasks: list[SubTask]) -> str:
    return "\n".join(_line(subtask) for subtask in subtasks)


def _line(subtask: SubTask) -> str:
    kind = subtask.skill_call.skill if subtask.skill_call else f"browser goal, done when {subtask.completion_condition}"
    result = f"; result fields: {', '.join(sorted(subtask.result_data))}" if subtask.result_data else ""
    step_id = subtask.inputs.get("step_id", subtask.subtask_id)
    return f"- {step_id} [{kind}]: {subtask.goal} — {subtask.status.value}{result}"


def _bullets(problems: list[str]) -> str:
    return "\n".join(f"- {problem}" for problem in problems) if problems else "none"
