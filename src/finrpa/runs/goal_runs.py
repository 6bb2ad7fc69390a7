"""Free-form goal runs on the durable run path (§C5, §C7).

A goal run is created with a one-step plan: the *planning step*, which holds the goal and the skills and
browser action kinds the creator may use. The runner executes it like any other step: the LLM planner turns
the goal into subtasks (compiled and checked in code), and a ``planned`` event replaces the one-step plan with
the planning step (done) followed by the planned subtasks, in the same commit as the step's success. Skill
subtasks then run through the normal executor (effect ledger, approval gate), browser goals through the LLM
loop; independent branches of the plan run at the same time, each with its own LLM loop, browser context and
action gate (:mod:`finrpa.runs.lanes`; lanes are pinned in the plan, so a replan keeps them). REPLAN goes back to
the planner with the completed subtasks and the failure. A planner that gives no
usable plan after its retries leaves the run in NEEDS_HUMAN with the raw output and the errors, and a person's
"retry" plans again. Every LLM call is recorded in ``llm_calls`` with the run, department and tier.

Every browser action the LLM loop proposes passes :class:`GoalActionGate` before it acts. Reads (navigate,
scroll, extract, a query button …) need only a host inside the node's capability manifest. An action that can
change the portal — a submit or confirm click, Enter in a form, accepting a confirm dialog, classified by the
risk keyword vocabulary and the element's type — is treated like a write skill step: the business operation
it performs (``payment.submit`` for a payment's confirm button …) with the amount typed into the form is
checked against the node's manifest, risk-assessed, decided by the Cedar policies (decision committed as an
event before acting), sent for approval when risk or policy asks (bound to the hash of exactly this action:
element fingerprint and typed values), begun in the effect ledger, and acted with a one-use token attenuated
from the node's. A refusal fails the subtask with its reason; nothing is clicked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import partial
from typing import Any, cast
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import ExecutionOutcome, SubtaskExecutor
from finrpa.agents.events import EventType
from finrpa.agents.llm_actions import BROWSER_ACTION_KINDS, ActionClearance, ActionRequest
from finrpa.agents.llm_executor import NEXT_ACTION_PROMPT_ID, LLMSubtaskExecutor
from finrpa.agents.llm_planner import AGENT_PROMPTS, PLAN_PROMPT_ID, REPLAN_PROMPT_ID, LLMPlanner, PlanningFailed
from finrpa.agents.plan import CoordinationState, SubTask, SubTaskStatus, TaskPlan, stable_subtask_id
from finrpa.agents.plan_memory import PlanMemory
from finrpa.agents.plan_proposal import PlanningContext, PlanningScope
from finrpa.approvals.models import ApprovalStatus
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
from finrpa.policy.errors import CapabilityDenied, TokenRejected
from finrpa.policy.manifest import CapabilityManifest, host_matches
from finrpa.policy.run_policy import NodeCall, RunPolicy
from finrpa.policy.schemas import Decision, PolicyDecision, RiskLevelName
from finrpa.policy.service import PolicyService
from finrpa.risk.categories import GENERIC, HIGH_IMPACT, Category
from finrpa.risk.levels import Effect, RiskLevel
from finrpa.risk.schemas import RiskDecision, RiskInput
from finrpa.risk.service import RiskAssessor
from finrpa.runs import effects
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.execution import (
    RunExecutor,
    capability_refusal_event,
    decision_event,
    manifest_event,
)
from finrpa.runs.gate import KeepAlive, risk_event
from finrpa.runs.journal import Transition, commit_transition, fence
from finrpa.runs.lanes import pin_lanes
from finrpa.runs.repository import NewEvent
from finrpa.skills.base import SideEffect
from finrpa.skills.context import SecretResolver
from finrpa.skills.registry import get_skill, list_skills
from finrpa.tenancy.database import TenantDatabase

PLANNING_STEP = "plan"
# What an action that changes the portal does, named by the risk category its words hit (first match wins).
_OPERATIONS = (
    (Category.MONEY_MOVEMENT, "payment.submit"),
    (Category.SECURITIES_ORDER, "securities.order"),
    (Category.CLAIM_PAYOUT, "claim.pay"),
    (Category.POLICY_SURRENDER, "policy.surrender"),
    (Category.BENEFICIARY_CHANGE, "beneficiary.change"),
    (Category.FINANCING, "financing.apply"),
    (Category.CREDENTIAL_CHANGE, "credential.change"),
    (Category.ACCOUNT_CLOSURE, "account.close"),
    (Category.DELETION, "record.delete"),
)
_COMMIT = GENERIC | HIGH_IMPACT
_HARMLESS = frozenset({Category.READ_INTENT, Category.DISMISS})
_READ_ACTIONS = frozenset(
    spec.name for spec in BROWSER_ACTIONS if spec.groups <= {ActionGroup.READ, ActionGroup.EXPORT}
)
_GOAL_PROMPTS = (PLAN_PROMPT_ID, REPLAN_PROMPT_ID, NEXT_ACTION_PROMPT_ID)
_LOOKS = frozenset({"scroll", "extract"})


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
    hands skill subtasks to the run's normal executor. With ``lane`` (how the LLM loop is built around a skill
    executor) and ``run_steps`` (the run's skill executor), independent branches of the plan run at the same time,
    each through its own LLM loop, browser context, evidence and action gate (:mod:`finrpa.runs.lanes`)."""

    planner: LLMPlanner
    steps: SubtaskExecutor
    context: PlanningContext
    scope: GoalScope = field(default_factory=lambda: GoalScope(frozenset(), frozenset()))
    lane: Callable[[RunExecutor], SubtaskExecutor] | None = None
    run_steps: RunExecutor | None = None

    @property
    def lane_steps(self) -> RunExecutor | None:
        return self.run_steps if self.lane is not None else None

    def in_lane(self, steps: RunExecutor) -> GoalRunExecutor:
        if self.lane is None:
            raise ValueError("This goal run executor cannot run branches in lanes of their own.")
        return replace(self, steps=self.lane(steps), run_steps=steps)

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
    """The planning step followed by the planned subtasks (their roots depend on it), with their lanes pinned."""
    subtasks = [step.model_copy(deep=True)]
    for position, subtask in enumerate(plan.subtasks, start=1):
        depends_on = subtask.depends_on or [step.subtask_id]
        subtasks.append(subtask.model_copy(update={"index": position, "depends_on": depends_on}))
    return pin_lanes(plan.model_copy(update={"subtasks": subtasks}))


class GoalRunPlanner(LLMPlanner):
    """A goal run's LLM planner. Its replans keep the lanes of the completed subtasks (pinned when the run was
    planned), and new work with no dependency starts where the failed step started: it depends on the failed
    step's completed dependencies (else on the last completed subtask), which it needs done anyway, and so
    continues that browser lane instead of opening another."""

    async def replan(self, state: CoordinationState, failure: str) -> TaskPlan:
        plan = await super().replan(state, failure)
        done = set(state.completed_subtasks)
        failed = [s for s in state.plan.subtasks if s.status is SubTaskStatus.FAILED and s.subtask_id not in done]
        anchor = [dep for dep in failed[-1].depends_on if dep in done] if failed else []
        if not anchor and state.completed_subtasks:
            anchor = [state.completed_subtasks[-1]]
        subtasks = [
            s if s.subtask_id in done or s.depends_on else s.model_copy(update={"depends_on": list(anchor)})
            for s in plan.subtasks
        ]
        return pin_lanes(plan.model_copy(update={"subtasks": subtasks}))


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
    planner = GoalRunPlanner(
        services.client,
        call_context,
        scope=PlanningScope.of(scope.skills, scope.actions, context),
        memory=services.memory,
    )

    def loop(skills: SubtaskExecutor, browser: BrowserSession, recorder: EvidenceRecorder) -> LLMSubtaskExecutor:
        """The LLM loop in one browser context: its page, its evidence, its gate (every action it proposes)."""

        async def controller() -> Controller:
            return (await browser.ensure())[1]

        gate = None
        if isinstance(skills, RunExecutor) and skills.policy is not None:
            domain = skills.gate.domain if skills.gate is not None else "common"
            gate = GoalActionGate(skills, skills.policy, domain=domain, keep_alive=portal_keep_alive(browser))
        return LLMSubtaskExecutor(
            services.client,
            services.router,
            call_context,
            controller,
            allowed_actions=scope.actions,
            cache=services.cache,
            secrets=secrets,
            skills=skills,
            evidence=recorder,
            gate=gate,
        )

    main = loop(steps, browser, recorder)
    if not isinstance(steps, RunExecutor):
        return GoalRunExecutor(planner, main, context, scope)

    def lane(skills: RunExecutor) -> SubtaskExecutor:
        return loop(skills, skills.browser, skills.recorder)

    return GoalRunExecutor(planner, main, context, scope, lane=lane, run_steps=steps)


def portal_keep_alive(browser: BrowserSession) -> KeepAlive:
    """The portal keep-alive of a goal run's approval wait. The skill path reloads the page while a person
    decides (its form is not filled yet); here the LLM has filled the form, and a confirm dialog may be open, so
    the touch must not disturb the page: it requests the current page in the run's browser context, whose
    cookies keep the portal session active, and leaves the tab as it is. Only a host of the run's egress
    allowlist is touched, never a page the run has not started."""

    async def touch() -> None:
        if not browser.started:
            return
        run, _ = await browser.ensure()
        tab = run.tabs.get(run.active_tab_id)
        url = tab.page.url if tab is not None and not tab.page.is_closed() else ""
        if not url.startswith(("http://", "https://")) or not run.allowlist.allows_url(url):
            return
        response = await run.context.request.get(url, max_redirects=0, timeout=15_000)
        await response.dispose()

    return touch


@dataclass(frozen=True)
class ApprovedOperation:
    """A business operation a person approved with its values (payee, amount …) on one subtask of a run, whose
    approved action then succeeded. The confirm step that completes the same operation with the same values
    right after it — a confirm button or an accepted confirm dialog, in a dialog that opened after the approved
    action and that states no other amount — is covered by the same approval; anything else needs its own."""

    approval_id: str
    subtask_id: str
    operation: str
    host: str
    typed: Mapping[str, str]
    amount_cny: Decimal | None
    level: RiskLevel
    dialog_text: str  # the dialog open when the approved action acted ("" when none)

    def covers(
        self, request: ActionRequest, node: NodeCall, host: str, level: RiskLevel, classifier: ActionClassifier
    ) -> bool:
        """Whether ``request`` (an action that changes the portal, proposed right after the approved one)
        completes the approved operation with the approved values, at no higher risk."""
        if (request.subtask.subtask_id, node.operation, host) != (self.subtask_id, self.operation, self.host):
            return False
        if _typed(request) != dict(self.typed) or node.amount_cny != self.amount_cny or level.rank > self.level.rank:
            return False
        if request.dialog_kind is None or not request.dialog_text or request.dialog_text == self.dialog_text:
            return False  # a confirm step is answered in a dialog the approved action opened
        kind = request.planned.kind
        confirms = kind == "accept_dialog" or (
            kind == "click" and Category.CONFIRMATION in classifier.categories(request.target_text)
        )
        if not confirms:
            return False
        stated = classifier.risk.largest_amount_cny(
            RiskInput(id=self.subtask_id, domain=classifier.domain, values={"dialog": request.dialog_text})
        )
        return stated is None or stated == self.amount_cny


@dataclass(frozen=True)
class _Ticket:
    """A cleared portal-changing action: its effect-ledger key (settled after the action), and the operation
    its approval was given for (a confirm step right after it, with the same values, is covered by it)."""

    key: effects.EffectKey
    subtask_id: str
    approved: ApprovedOperation | None = None


class ActionClassifier:
    """Which actions the LLM proposes can change the portal, and the business operation they perform, read from
    the risk keyword vocabulary of the run's domain and the element's type (deterministic, no LLM)."""

    def __init__(self, risk: RiskAssessor, domain: str = "common") -> None:
        self.risk = risk
        self.domain = domain

    def categories(self, text: str) -> set[Category]:
        matcher = self.risk.detector.matchers(self.domain).action
        return {entry.category for entry in matcher.find(text)} if text else set()

    def changes_portal(self, request: ActionRequest) -> bool:
        """Whether the action can change the portal: a submit or confirm click, Enter in a form, accepting a
        confirm dialog. A query or cancel button (its words say so, and name no commit) is a read, and so is a
        link that names an operation without committing it (a menu entry)."""
        kind = request.planned.kind
        if kind == "accept_dialog":  # OK on an alert only closes it; a confirm or prompt goes ahead
            if request.dialog_kind == "alert":
                return False
            return request.dialog_kind in ("confirm", "prompt", "beforeunload") or bool(
                self.categories(request.dialog_text) & _COMMIT
            )
        if kind == "press":
            if (request.planned.key or "").lower() != "enter":
                return False
            words = self.categories(request.page_title)
            return not (words & _HARMLESS and not words & _COMMIT)
        if kind != "click":
            return False
        words = self.categories(request.target_text)
        if words & _HARMLESS and not words & _COMMIT:
            return False
        fingerprint = request.planned.fingerprint
        if fingerprint is not None and fingerprint.role == "link":  # a menu entry named 对公付款 only opens a page
            return bool(words & GENERIC)
        return request.planned.target_type == "submit" or bool(words & _COMMIT)

    def operation(self, request: ActionRequest) -> str:
        """The business operation an action that changes the portal performs: named by its own words, else
        the values typed, the form or dialog around it, the page title or the dialog it confirms; else the
        browser action kind."""
        values = " ".join(item.shown() for item in request.typed)
        for text in (request.target_text, values, _container(request), request.page_title, request.dialog_text):
            words = self.categories(text)
            for category, operation in _OPERATIONS:
                if category in words:
                    return operation
        return request.planned.kind


class GoalActionGate:
    """The run layer's gate in front of the LLM loop's actions (see the module docstring)."""

    def __init__(
        self,
        steps: RunExecutor,
        policy: RunPolicy,
        *,
        domain: str = "common",
        keep_alive: KeepAlive | None = None,
    ) -> None:
        self.steps = steps
        self.policy = policy
        self.domain = domain
        self.risk: RiskAssessor = steps.risk
        self.classifier = ActionClassifier(self.risk, domain)
        self.keep_alive = keep_alive  # touches the portal while a person decides
        # The approved operation whose action just succeeded: covers the confirm step proposed right after it.
        self.approved: ApprovedOperation | None = None

    def changes_portal(self, request: ActionRequest) -> bool:
        return self.classifier.changes_portal(request)

    def operation(self, request: ActionRequest) -> str:
        return self.classifier.operation(request)

    # -- the gate -----------------------------------------------------------------------------------------------
    async def review(self, request: ActionRequest) -> ActionClearance:
        subtask = request.subtask
        target_url = request.value if request.planned.kind == "navigate" and request.value else request.url
        host = urlsplit(target_url).hostname or ""
        approved = self.approved
        if request.planned.kind not in _LOOKS:  # only looking (scroll, extract) keeps an approval's cover
            self.approved = None
        if not self.changes_portal(request):
            return self.check_read_host(request, host)
        values = {item.field: item.shown() for item in request.typed if item.value is not None}
        assessed = RiskInput(
            id=subtask.subtask_id,
            domain=self.domain,
            page_title=" ".join(part for part in (request.page_title, _container(request)) if part),
            page_text=request.dialog_text,
            action_type=request.planned.kind,
            target_text=request.target_text,
            values=cast(dict[str, Any], values),
            effect=Effect.WRITE,
        )
        operation = self.operation(request)
        priced = assessed.model_copy(update={"target_text": "", "page_title": "", "page_text": ""})
        node = NodeCall(
            node_id=subtask.subtask_id,
            operation=operation,
            effect=self.policy.effect(operation, "write"),
            amount_cny=self.risk.largest_amount_cny(priced),
            record_count=self.risk.record_count(assessed),
        )
        assessed = assessed.model_copy(update={"effect": Effect(node.effect)})
        manifest, recompiled = self.policy.manifest_for(node)
        events = [manifest_event(subtask, manifest, "proposed_action", self.policy.ceiling)] if recompiled else []
        refusal = _manifest_refusal(manifest, node, host)
        risk = await self.risk.assess(assessed)
        level: RiskLevelName = risk.final_level.value
        policy_request = self.policy.request(manifest, node, host, risk_level=level)
        bound = request.bound(operation, host)
        if approved is not None and not approved.covers(request, node, host, risk.final_level, self.classifier):
            approved = None

        async def decide(session: AsyncSession) -> PolicyDecision:
            decision = await PolicyService(session).decide(
                policy_request, run_id=self.steps.identity.run_id, node_id=node.node_id
            )
            recorded = [*events, risk_event(subtask, risk)]
            recorded.append(decision_event(subtask, node, host, decision, manifest.digest(), refusal))
            covered = approved if _needs_approval(risk, decision) else None
            recorded.append(_proposed_event(subtask, bound, decision, covered))
            await commit_transition(
                session, self.steps.identity.run_id, self.steps.fencing_token, Transition(events=recorded)
            )
            return decision

        decision = await self.steps.transaction(decide)
        if decision.decision is Decision.DENY:
            codes = ", ".join(decision.reason_codes)
            message = f"Refused by policy ({codes}) before any portal action: {' '.join(decision.reasons)}"
            return ActionClearance(False, "policy_denied", f"{message} {refusal}".strip())
        return await self.through_ledger(request, node, host, bound, risk, decision, approved)

    def check_read_host(self, request: ActionRequest, host: str) -> ActionClearance:
        """A read needs only a host inside the manifest (the run's portal hosts); a page without a host (a
        blank tab, a dialog) is not a portal."""
        if not host or host_matches(host, self.policy.hosts):
            return ActionClearance(True)
        allowed = ", ".join(sorted(self.policy.hosts)) or "none"
        message = (
            f"{request.planned.kind} on host {host!r} is outside node {request.subtask.subtask_id}'s capability "
            f"manifest (allowed hosts: {allowed}); nothing was done."
        )
        event = capability_refusal_event(request.subtask, message)
        event.payload.update({"operation": request.planned.kind, "host": host})
        return ActionClearance(False, CapabilityDenied.code, message, events=(event,))

    async def through_ledger(
        self,
        request: ActionRequest,
        node: NodeCall,
        host: str,
        bound: dict[str, Any],
        risk: RiskDecision,
        decision: PolicyDecision,
        approved: ApprovedOperation | None = None,
    ) -> ActionClearance:
        """Effect ledger (begun before the click; an earlier attempt is reconciled), approval (or the cover of
        the approval just given for the operation this action confirms), then the token."""
        subtask = request.subtask
        identity = self.steps.identity
        digest = hashlib.sha256(json.dumps(bound, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        business_id = f"{identity.run_id}:{subtask.subtask_id}:{digest[:32]}"
        key = effects.EffectKey(identity.org_id, node.operation, business_id)

        async def begin(session: AsyncSession) -> tuple[str, bool]:
            effect, fresh = await effects.begin(
                session,
                key,
                run_id=identity.run_id,
                subtask_id=subtask.subtask_id,
                params_hash=digest,
                fencing_token=self.steps.fencing_token,
            )
            return effect.state, fresh

        state, fresh = await self.steps.transaction(begin)
        ledger = [_effect_event(subtask.subtask_id, key, state)]
        if state == effects.EffectState.SUCCEEDED:
            return ActionClearance(False, done_before=True, events=tuple(ledger))
        if not fresh:
            message = (
                f"This exact {node.operation} ({request.planned.describe()}) was started earlier in this run and may "
                "have reached the portal; check the portal, then mark the step done or retry it."
            )
            return ActionClearance(False, "effect_uncertain", message, events=tuple(ledger), needs_human=True)
        approval = None
        if decision.decision is Decision.REQUIRE_APPROVAL:
            coded = zip(decision.reason_codes, decision.reasons, strict=False)
            approval = [f"{code}: {reason}" for code, reason in coded]
        given: ApprovedOperation | None = None
        if _needs_approval(risk, decision) and approved is not None:
            ledger.append(_covered_event(subtask.subtask_id, approved, bound, digest))
        elif _needs_approval(risk, decision):
            gate = self.steps.gate
            if gate is None:
                await self.settle_key(key, effects.EffectState.NOT_DONE, "no approval gate")
                message = "This action needs an approval, and this run has no approval gate; run it through the server."
                return ActionClearance(False, "approval_unavailable", message, events=tuple(ledger))
            verdict = await gate.check(
                self.steps.identity,
                self.steps.fencing_token,
                subtask,
                None,
                self.keep_alive,
                risk=risk,
                policy_approval=approval,
                action=bound,
            )
            ledger.extend(verdict.events)
            if not verdict.proceed:
                await self.settle_key(key, effects.EffectState.NOT_DONE, verdict.reason)
                ledger.append(_effect_event(subtask.subtask_id, key, effects.EffectState.NOT_DONE))
                return ActionClearance(False, "approval_not_given", verdict.reason, events=tuple(ledger))
            if verdict.approval_id is not None:
                given = ApprovedOperation(
                    approval_id=verdict.approval_id,
                    subtask_id=subtask.subtask_id,
                    operation=node.operation,
                    host=host,
                    typed=_typed(request),
                    amount_cny=node.amount_cny,
                    level=risk.final_level,
                    dialog_text=request.dialog_text if request.dialog_kind is not None else "",
                )
        try:
            await self.check_fence()
            token = self.policy.agent_token(node, host)
            await self.policy.spend_agent_token(token, node, host)
        except (TokenRejected, CapabilityDenied) as exc:
            await self.settle_key(key, effects.EffectState.NOT_DONE, exc.message)
            ledger.append(_effect_event(subtask.subtask_id, key, effects.EffectState.NOT_DONE))
            return ActionClearance(False, exc.code, exc.message, events=tuple(ledger))
        return ActionClearance(True, events=tuple(ledger), ticket=_Ticket(key, subtask.subtask_id, given))

    async def settle(
        self, clearance: ActionClearance, *, ok: bool, may_have_acted: bool, detail: str
    ) -> list[NewEvent]:
        ticket = clearance.ticket
        if not isinstance(ticket, _Ticket):
            return []
        if ok:
            state = effects.EffectState.SUCCEEDED
            self.approved = ticket.approved
        else:
            state = effects.EffectState.UNCERTAIN if may_have_acted else effects.EffectState.NOT_DONE
        await self.settle_key(ticket.key, state, detail)
        return [_effect_event(ticket.subtask_id, ticket.key, state)]

    async def settle_key(self, key: effects.EffectKey, state: effects.EffectState, detail: str) -> None:
        identity, token = self.steps.identity, self.steps.fencing_token

        async def settle(session: AsyncSession) -> None:
            await effects.settle(session, key, state, run_id=identity.run_id, fencing_token=token, detail=detail)

        await self.steps.transaction(settle)

    async def check_fence(self) -> None:
        """A worker that waited for an approval and was replaced meanwhile must not click."""
        run_id, token = self.steps.identity.run_id, self.steps.fencing_token
        await self.steps.transaction(partial(fence, run_id=run_id, fencing_token=token, lock=False))


def _container(request: ActionRequest) -> str:
    """The heading, form legend or dialog name around the target (what the button submits or confirms)."""
    return request.planned.fingerprint.container if request.planned.fingerprint is not None else ""


def _manifest_refusal(manifest: CapabilityManifest, node: NodeCall, host: str) -> str:
    try:
        manifest.check(node.operation, host or None, node.arguments)
    except CapabilityDenied as exc:
        dropped = [
            f"{item.reason_code}: {item.reason}" for item in manifest.dropped if item.operation == node.operation
        ]
        return " ".join([exc.message, *(f"(compiler: {text})" for text in dropped)])
    return ""


def _effect_event(subtask_id: str, key: effects.EffectKey, state: str) -> NewEvent:
    return NewEvent(EventType.EFFECT, {"subtask_id": subtask_id, "key": key.value, "state": state, "source": "llm"})


def _proposed_event(
    subtask: SubTask, bound: dict[str, Any], decision: PolicyDecision, covered: ApprovedOperation | None = None
) -> NewEvent:
    """The LLM's proposed action as the policy decided it (values typed before it included, secrets by name),
    with the approval that covers it when it confirms an operation just approved with the same values."""
    payload: dict[str, Any] = {"kind": "llm_action", "subtask_id": subtask.subtask_id, "action": bound}
    payload["decision"] = decision.decision.value
    if covered is not None:
        payload["covered_by_approval"] = covered.approval_id
    return NewEvent(EventType.POLICY_DECISION, payload)


def _covered_event(subtask_id: str, approved: ApprovedOperation, bound: dict[str, Any], digest: str) -> NewEvent:
    """The approval decision row of a confirm step: no new request, the approval given for the operation it
    completes (by id) covers this exact action (its hash)."""
    return NewEvent(
        EventType.APPROVAL_DECIDED,
        {
            "subtask_id": subtask_id,
            "approval_id": approved.approval_id,
            "status": ApprovalStatus.APPROVED.value,
            "covered": True,
            "operation": approved.operation,
            "action": bound,
            "action_hash": digest,
        },
    )


def _needs_approval(risk: RiskDecision, decision: PolicyDecision) -> bool:
    return risk.requires_approval or decision.decision is Decision.REQUIRE_APPROVAL


def _typed(request: ActionRequest) -> dict[str, str]:
    return {item.field: item.shown() for item in request.typed}
