"""Executing one subtask of a run: the skill, in the run's browser, through the effect ledger for writes.

The executor is the coordinator's only way to touch the world. Read steps simply run their skill. A step
that changes a portal first commits ``started`` in the effect ledger; if the ledger already knows the effect
it is not repeated (succeeded), or the portal is asked first whether it happened (reconcile) and a person
decides when the portal cannot tell.

Before any of that the run's policy (:class:`~finrpa.policy.run_policy.RunPolicy`) admits the step: it must be
inside its node's capability manifest (recompiled when a replan changed the node), and a write, irreversible
step or export is decided by the Cedar policies with the step's risk level, amount and record count. The
decision is committed to the decision log and as a run event before the step acts; deny ends the run, a
required approval goes through the approval gate, and a one-use capability token is spent right before the
effect. Skills check the manifest again on the page's host right before a submit or confirm.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import ExecutionOutcome
from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState, SkillCall, SubTask
from finrpa.browser import Controller, RunBrowser
from finrpa.config import Settings
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService
from finrpa.policy.errors import CapabilityDenied, TokenRejected
from finrpa.policy.manifest import ArgumentBounds, CapabilityManifest
from finrpa.policy.run_policy import NodeCall, RunPolicy, plan_ceiling
from finrpa.policy.schemas import Decision, PolicyDecision, RiskLevelName
from finrpa.policy.service import PolicyService
from finrpa.policy.tokens import CapabilityTokens
from finrpa.risk.schemas import RiskDecision, RiskInput
from finrpa.risk.service import RiskAssessor
from finrpa.runs import effects
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.gate import ApprovalGate, GateVerdict, flatten_values, risk_event
from finrpa.runs.journal import Transition, commit_transition, fence
from finrpa.runs.models import Run
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.skills.base import BaseSkill, ReconcileOutcome, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SecretResolver, SkillContext
from finrpa.skills.portal_state import transient_error
from finrpa.skills.registry import get_skill

T = TypeVar("T")
_START_PAGE_ATTEMPTS = 3
Transaction = Callable[[Callable[[AsyncSession], Awaitable[T]]], Awaitable[T]]


@dataclass
class Admission:
    """What the policy said about a node's step: refused (the outcome to return), or allowed, possibly only
    after an approval (``approval`` holds the policy's coded reasons), with a token to spend before the effect."""

    refused: ExecutionOutcome | None = None
    node: NodeCall | None = None
    risk: RiskDecision | None = None
    approval: list[str] | None = None
    token: str | None = None


@dataclass(frozen=True)
class RunIdentity:
    run_id: str
    org_id: str
    dept_id: str | None
    bl_id: str | None
    created_by: str | None = None

    @property
    def id(self) -> str:
        return self.run_id


class RunExecutor:
    """Implements the coordinator's SubtaskExecutor for template and plan steps."""

    def __init__(
        self,
        identity: RunIdentity,
        browser: BrowserSession,
        recorder: EvidenceRecorder,
        transaction: Transaction[Any],
        *,
        artifacts_dir: Path,
        fencing_token: int,
        secrets: SecretResolver | None = None,
        upload_roots: tuple[Path, ...] = (),
        wait_s: float = 10.0,
        relogin: SkillCall | None = None,
        gate: ApprovalGate | None = None,
        policy: RunPolicy | None = None,
    ) -> None:
        self.identity = identity
        self.browser = browser
        self.recorder = recorder
        self.transaction = transaction
        self.artifacts_dir = artifacts_dir
        self.fencing_token = fencing_token
        self.secrets = secrets
        self.upload_roots = upload_roots
        self.wait_s = wait_s
        self.relogin = relogin
        self.gate = gate
        self.policy = policy
        self.risk = gate.risk if gate is not None else RiskAssessor()
        self._start_urls: dict[str, str] = {}

    async def _context(self, subtask: SubTask) -> SkillContext:
        run_browser, controller = await self.browser.ensure()
        self.recorder.subtask_id = subtask.subtask_id
        context = self._skill_context(subtask, run_browser, controller)
        if self.browser.session_lost and self.relogin is not None:
            await self._sign_in_again(context)
        return context

    async def _sign_in_again(self, context: SkillContext) -> None:
        """The restored session was gone (the portal shows its login form): sign in, then go back."""
        assert self.relogin is not None
        result = await get_skill(self.relogin.skill)().run(self.relogin.params, context)
        if not result.success:
            raise SkillError(
                f"Signing in again after resuming failed: {result.error_message}",
                code=result.error_code or "relogin_failed",
                retryable=result.retryable,
            )
        self.browser.session_lost = False
        if self.browser.resume_url:
            await context.controller.navigate(self.browser.resume_url)

    async def _return_to_start(self, subtask: SubTask, context: SkillContext) -> None:
        """A retried step starts again from the page its first attempt started on (not from an error page)."""
        tabs = context.browser.tabs
        here = context.browser.active_tab.page.url if tabs else None
        if subtask.attempts <= 1 or subtask.subtask_id not in self._start_urls:
            if here and here != "about:blank":
                self._start_urls.setdefault(subtask.subtask_id, here)
            return
        for attempt in range(_START_PAGE_ATTEMPTS):
            await context.controller.navigate(self._start_urls[subtask.subtask_id])
            if transient_error(await context.controller.observe()) is None:
                return
            await asyncio.sleep(0.5 * (attempt + 1))  # the portal said "try again later"

    async def _check_fence(self) -> None:
        """A worker that was paused and replaced must not touch the portal again: check right before effects."""
        run_id, token = self.identity.run_id, self.fencing_token
        await self.transaction(partial(fence, run_id=run_id, fencing_token=token, lock=False))

    async def _admit(self, subtask: SubTask, call: SkillCall, context: SkillContext) -> Admission:
        """The policy's word on this step, recorded (decision log and run event) before anything acts: reads
        need only be inside the node's manifest; writes, irreversible steps and exports are decided."""
        if self.policy is None:
            return Admission()
        policy = self.policy
        node = node_call(subtask, call, policy, self.risk)
        manifest, recompiled = policy.manifest_for(node)
        events = [manifest_event(subtask, manifest, "replanned", policy.ceiling)] if recompiled else []
        context.capability_guard = self._capability_guard(node)
        host = context.current_host() or min(policy.hosts, default="")
        in_manifest = manifest.permits(node.operation, host or None, node.arguments)
        decided = node.effect != "read" or policy.is_export(node.operation)
        if not decided and in_manifest:
            if events:
                await self._record(events)
            return Admission(node=node)
        risk = await self._assess(subtask, call) if decided else None
        request = policy.request(manifest, node, host, risk_level=_risk_name(risk))
        refusal = "" if in_manifest else _manifest_refusal(manifest, node, host)

        async def decide(session: AsyncSession) -> PolicyDecision:
            decision = await PolicyService(session).decide(request, run_id=self.identity.run_id, node_id=node.node_id)
            recorded = [*events, *([risk_event(subtask, risk)] if risk else [])]
            recorded.append(decision_event(subtask, node, host, decision, manifest.digest(), refusal))
            await commit_transition(session, self.identity.run_id, self.fencing_token, Transition(events=recorded))
            return decision

        decision = await self.transaction(decide)
        if decision.decision is Decision.DENY:
            return Admission(refused=_policy_refusal(node, decision, refusal))
        approval = None
        if decision.decision is Decision.REQUIRE_APPROVAL:
            coded = zip(decision.reason_codes, decision.reasons, strict=False)
            approval = [f"{code}: {reason}" for code, reason in coded]
        token = policy.issue_token(node.node_id) if node.effect != "read" else None
        return Admission(node=node, risk=risk, approval=approval, token=token)

    async def _assess(self, subtask: SubTask, call: SkillCall) -> RiskDecision:
        if self.gate is not None:
            return await self.gate.assess(subtask, call)
        return await self.risk.assess(_risk_input(subtask, call))

    async def _record(self, events: list[NewEvent]) -> None:
        async def record(session: AsyncSession) -> None:
            await commit_transition(session, self.identity.run_id, self.fencing_token, Transition(events=events))

        await self.transaction(record)

    def _capability_guard(self, node: NodeCall) -> Callable[[str | None], Awaitable[None]]:
        """Right before a submit or confirm: the page's host, the operation and its arguments must be inside
        the node's current manifest (raises CapabilityDenied, which fails the skill before it acts)."""

        async def guard(host: str | None) -> None:
            assert self.policy is not None
            self.policy.manifests[node.node_id].check(node.operation, host, node.arguments)

        return guard

    async def _spend_token(self, subtask: SubTask, admission: Admission) -> ExecutionOutcome | None:
        """Spend the node's one-use capability token right before the effect; a rejected token stops the run."""
        if self.policy is None or admission.token is None:
            return None
        try:
            await self.policy.spend_token(admission.token, subtask.subtask_id)
        except TokenRejected as exc:
            return ExecutionOutcome(
                success=False, error=exc.message, error_code=exc.code, retryable=False, abort_run=True
            )
        return None

    async def _approved_read(
        self, skill: BaseSkill[Any], subtask: SubTask, context: SkillContext, admission: Admission
    ) -> ExecutionOutcome:
        """A read the policy lets happen only after a person's approval (e.g. a bulk export)."""
        call = subtask.skill_call
        assert call is not None
        if self.gate is None:
            reason = "This export needs an approval, and this run has no approval gate; start it through the server."
            return ExecutionOutcome(success=False, error=reason, error_code="approval_unavailable", abort_run=True)
        verdict = await self._ask_gate(self.gate, subtask, call, context, admission)
        if not verdict.proceed:
            return ExecutionOutcome(
                success=False,
                error=verdict.reason,
                error_code="approval_not_given",
                retryable=False,
                events=verdict.events,
            )
        outcome = await self._outcome(await skill.run(call.params, context))
        outcome.events[:0] = verdict.events
        return outcome

    async def _ask_gate(
        self, gate: ApprovalGate, subtask: SubTask, call: SkillCall, context: SkillContext, admission: Admission
    ) -> GateVerdict:
        """The approval gate for this step, with the risk and policy reasons already decided at admission."""
        return await gate.check(
            self.identity,
            self.fencing_token,
            subtask,
            call,
            keep_alive=lambda: _keep_alive(context),
            risk=admission.risk,
            policy_approval=admission.approval,
        )

    def _skill_context(self, subtask: SubTask, run_browser: RunBrowser, controller: Controller) -> SkillContext:
        return SkillContext(
            effect_guard=self._check_fence,
            run_id=self.identity.run_id,
            step_id=str(subtask.inputs.get("step_id", subtask.subtask_id)),
            controller=controller,
            browser=run_browser,
            artifacts_dir=self.artifacts_dir,
            secrets=self.secrets,
            org_id=self.identity.org_id,
            wait_s=self.wait_s,
            upload_roots=self.upload_roots,
        )

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        call = subtask.skill_call
        if call is None:
            return ExecutionOutcome(success=False, error="This step has no skill to run.", error_code="no_skill")
        skill = get_skill(call.skill)()
        started = time.perf_counter()
        context = await self._context(subtask)
        await self._return_to_start(subtask, context)
        admission = await self._admit(subtask, call, context)
        if admission.refused is not None:
            return admission.refused
        if call.side_effect is not SideEffect.READ:
            outcome = await self._effect(skill, subtask, context, admission)
        elif admission.approval is not None:
            outcome = await self._approved_read(skill, subtask, context, admission)
        else:
            outcome = await self._outcome(await skill.run(call.params, context))
        outcome.duration_ms = int((time.perf_counter() - started) * 1000)
        return outcome

    async def _effect(
        self, skill: BaseSkill[Any], subtask: SubTask, context: SkillContext, admission: Admission
    ) -> ExecutionOutcome:
        call = subtask.skill_call
        assert call is not None
        key = effects.EffectKey(
            self.identity.org_id, call.skill, call.business_id or f"{self.identity.run_id}:{subtask.subtask_id}"
        )
        params_hash = effects.args_hash(call.params)

        async def begin(session: AsyncSession) -> tuple[str, str | None, bool]:
            effect, fresh = await effects.begin(
                session,
                key,
                run_id=self.identity.run_id,
                subtask_id=subtask.subtask_id,
                params_hash=params_hash,
                fencing_token=self.fencing_token,
            )
            return effect.state, effect.external_ref, fresh

        state, reference, fresh = await self.transaction(begin)
        ledger = [NewEvent(EventType.EFFECT, {"subtask_id": subtask.subtask_id, "key": key.value, "state": state})]
        if state == effects.EffectState.SUCCEEDED:
            return ExecutionOutcome(success=True, data={"reference": reference, "already_done": True}, events=ledger)
        if not fresh:
            decided, look_up = await self._reconcile(skill, subtask, context, key)
            ledger.extend(look_up)
            if decided is not None:
                decided.events[:0] = ledger
                return decided
        if self.gate is not None:
            verdict = await self._ask_gate(self.gate, subtask, call, context, admission)
            ledger.extend(verdict.events)
            if not verdict.proceed:
                await self._settle(key, effects.EffectState.NOT_DONE, None, verdict.reason)
                return ExecutionOutcome(
                    success=False, error=verdict.reason, error_code="approval_not_given", retryable=False, events=ledger
                )
        refused = await self._spend_token(subtask, admission)
        if refused is not None:
            await self._settle(key, effects.EffectState.NOT_DONE, None, refused.error or "")
            refused.events[:0] = ledger
            return refused
        result = await skill.run(call.params, context)
        outcome = await self._outcome(result)
        if result.error_code == CapabilityDenied.code and not context.effect_attempted:
            outcome.abort_run = True
            ledger.append(capability_refusal_event(subtask, result.error_message or ""))
        if result.success:
            settled = effects.EffectState.SUCCEEDED
        elif context.effect_attempted:
            settled = effects.EffectState.UNCERTAIN
        else:
            settled = effects.EffectState.NOT_DONE  # failed before touching anything that changes the portal
        reference = _reference(result) if result.success else None
        await self._settle(key, settled, reference, result.error_message or "")
        outcome.events[:0] = ledger
        outcome.events.append(
            NewEvent(
                EventType.EFFECT,
                {"subtask_id": subtask.subtask_id, "key": key.value, "state": settled, "external_ref": reference},
            )
        )
        return outcome

    async def _reconcile(
        self, skill: BaseSkill[Any], subtask: SubTask, context: SkillContext, key: effects.EffectKey
    ) -> tuple[ExecutionOutcome | None, list[NewEvent]]:
        """Ask the portal whether an interrupted effect happened. (None, evidence) means it did not, so
        acting is safe; otherwise the decided outcome."""
        call = subtask.skill_call
        assert call is not None
        verdict = await skill.reconcile(skill.params_model.model_validate(call.params), context)
        await self.browser.settled()
        evidence = self.recorder.drain()
        if verdict.outcome is ReconcileOutcome.HAPPENED:
            await self._settle(key, effects.EffectState.SUCCEEDED, verdict.external_reference, verdict.detail)
            data = {"reference": verdict.external_reference, "reconciled": True}
            return ExecutionOutcome(success=True, data=data), evidence
        if verdict.outcome is ReconcileOutcome.DID_NOT_HAPPEN:
            await self._settle(key, effects.EffectState.NOT_DONE, None, verdict.detail)
            params_hash = effects.args_hash(call.params)

            async def restart(session: AsyncSession) -> None:
                await effects.begin(
                    session,
                    key,
                    run_id=self.identity.run_id,
                    subtask_id=subtask.subtask_id,
                    params_hash=params_hash,
                    fencing_token=self.fencing_token,
                )

            await self.transaction(restart)
            return None, evidence
        reason = (
            f"Cannot tell whether {key.operation} for {key.business_id!r} reached the portal "
            f"({verdict.detail}); check the portal and mark the step done, or retry it."
        )
        outcome = ExecutionOutcome(success=False, error=reason, error_code="effect_uncertain", needs_human=True)
        return outcome, evidence

    async def _settle(
        self, key: effects.EffectKey, state: effects.EffectState, reference: str | None, detail: str
    ) -> None:
        async def settle(session: AsyncSession) -> None:
            await effects.settle(
                session,
                key,
                state,
                run_id=self.identity.run_id,
                fencing_token=self.fencing_token,
                external_ref=reference,
                detail=detail,
            )

        await self.transaction(settle)

    async def _outcome(self, result: SkillResult) -> ExecutionOutcome:
        data = dict(result.data)
        if result.artifacts:
            data["artifacts"] = [artifact.model_dump() for artifact in result.artifacts]
        await self.browser.settled()
        events = self.recorder.drain()
        context: dict[str, Any] = {}
        if not result.success:
            context = {"error_code": result.error_code, "url": result.url, "last_screenshot": _last_screenshot(events)}
        return ExecutionOutcome(
            success=result.success,
            data=data,
            error=result.error_message,
            error_code=result.error_code,
            retryable=result.retryable,
            needs_human=result.needs_human,
            events=events,
            url=result.url,
            human_context=context,
        )

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        call = subtask.skill_call
        if call is None or call.compensation is None:
            return ExecutionOutcome(
                success=False,
                error_code="not_compensable",
                error="This step changed the portal and has no compensation; a person must undo it by hand.",
            )
        compensation = get_skill(call.compensation)()
        return await self._outcome(await compensation.run(call.params, await self._context(subtask)))


async def open_run_policy(
    session: AsyncSession,
    settings: Settings,
    tokens: CapabilityTokens,
    run: Run,
    state: CoordinationState,
    *,
    hosts: frozenset[str],
    risk: RiskAssessor,
    fencing_token: int,
) -> RunPolicy:
    """The run's policy, with a manifest compiled for every node of its plan and recorded as a run event (only
    when it differs from the one recorded last). The first preparation's amounts stay the run's ceiling."""
    policy = RunPolicy(
        user=await _creator(session, settings, run),
        run_id=run.id,
        department_id=run.dept_id,
        business_line_id=run.bl_id,
        hosts=hosts,
        engine=await PolicyService(session).engine(run.org_id),
        tokens=tokens,
        ceiling=ArgumentBounds(),
    )
    recorded = [event.payload for event in await RunRepository(session).events(run.id) if _is_manifest(event.payload)]
    nodes = [(sub, node_call(sub, sub.skill_call, policy, risk)) for sub in state.plan.subtasks if sub.skill_call]
    first = recorded[0].get("ceiling") if recorded else None
    policy.ceiling = ArgumentBounds.model_validate(first) if first else plan_ceiling([node for _, node in nodes])
    if run.template_id is None and not first:  # a goal run: at most what the goal and its arguments name
        policy.ceiling = _widest(policy.ceiling, goal_ceiling(state.plan.navigation_goal, run.arguments, risk))
    latest = {payload["subtask_id"]: payload.get("manifest_digest") for payload in recorded}
    events = []
    for subtask, node in nodes:
        manifest = policy.compile(node)
        if latest.get(subtask.subtask_id) != manifest.digest():
            events.append(manifest_event(subtask, manifest, "prepared", policy.ceiling))
    if events:
        await commit_transition(session, run.id, fencing_token, Transition(events=events))
    return policy


def goal_ceiling(goal: str, arguments: dict[str, Any], risk: RiskAssessor) -> ArgumentBounds:
    """The bounds a free-form goal run was created with: the largest amount and record count its goal text and
    arguments name (an LLM-planned action may never move more than the person asked for)."""
    values = {str(name): value for name, value in arguments.items() if isinstance(value, str | int | float)}
    action = RiskInput(target_text=goal, values=flatten_values(values))
    return ArgumentBounds(
        max_amount_cny=risk.largest_amount_cny(action) or Decimal(0), max_records=risk.record_count(action) or 0
    )


def _widest(first: ArgumentBounds, second: ArgumentBounds) -> ArgumentBounds:
    return ArgumentBounds(
        max_amount_cny=max(first.max_amount_cny or Decimal(0), second.max_amount_cny or Decimal(0)),
        max_records=max(first.max_records or 0, second.max_records or 0),
    )


async def _creator(session: AsyncSession, settings: Settings, run: Run) -> Principal:
    """The user who started the run; a run started from the command line (no user) acts as the platform,
    which the policies still bind."""
    directory = DirectoryService(session, settings)
    user = await directory.repo.user(run.created_by) if run.created_by else None
    if user is None or user.org_id != run.org_id:
        return Principal.platform(run.org_id, f"run started by {run.created_by or 'the command line'}")
    return await directory.load_principal(user)


def _is_manifest(payload: dict[str, Any]) -> bool:
    return payload.get("kind") == "capability_manifest"


def node_call(subtask: SubTask, call: SkillCall, policy: RunPolicy, risk: RiskAssessor) -> NodeCall:
    """The node's step as policies see it: its operation, effect, and the amount and record count it names."""
    operation = call.operation or call.skill
    action = _risk_input(subtask, call)
    return NodeCall(
        node_id=subtask.subtask_id,
        operation=operation,
        # A declared business operation carries its catalogue groups; a bare skill step is what it declares
        # (a FormFillSkill that only fills a search form is a read).
        effect=policy.effect(operation, call.side_effect.value) if call.operation else call.side_effect.value,
        amount_cny=risk.largest_amount_cny(action.model_copy(update={"target_text": "", "page_title": ""})),
        record_count=risk.record_count(action),
    )


def _risk_input(subtask: SubTask, call: SkillCall) -> RiskInput:
    return RiskInput(
        id=subtask.subtask_id,
        page_title=subtask.goal,
        action_type="submit",
        target_text=subtask.goal,
        values=flatten_values(call.params),
        effect=call.side_effect.value,
    )


def _risk_name(risk: RiskDecision | None) -> RiskLevelName:
    level = risk.final_level.value if risk is not None else "low"
    return cast(RiskLevelName, level)


def manifest_event(
    subtask: SubTask, manifest: CapabilityManifest, reason: str, ceiling: ArgumentBounds | None = None
) -> NewEvent:
    """A node's compiled manifest, as the run records it (why: prepared or replanned)."""
    return NewEvent(
        EventType.POLICY_DECISION,
        {
            "kind": "capability_manifest",
            "ceiling": ceiling.model_dump(mode="json") if ceiling is not None else None,
            "subtask_id": subtask.subtask_id,
            "compiled_because": reason,
            "manifest_digest": manifest.digest(),
            "rights": manifest.rights(),
            "dropped": [dropped.model_dump(mode="json") for dropped in manifest.dropped],
            "policy_version": manifest.policy_version,
        },
    )


def decision_event(
    subtask: SubTask, node: NodeCall, host: str, decision: PolicyDecision, digest: str, refusal: str
) -> NewEvent:
    return NewEvent(
        EventType.POLICY_DECISION,
        {
            "kind": "decision",
            "subtask_id": subtask.subtask_id,
            "operation": node.operation,
            "host": host,
            "effect": node.effect,
            "amount_cny": None if node.amount_cny is None else str(node.amount_cny),
            "record_count": node.record_count,
            "decision": decision.decision.value,
            "reason_codes": decision.reason_codes,
            "reasons": decision.reasons,
            "manifest_refusal": refusal or None,
            "manifest_digest": digest,
            "policy_version": decision.policy_version,
        },
    )


def capability_refusal_event(subtask: SubTask, message: str) -> NewEvent:
    return NewEvent(
        EventType.POLICY_DECISION,
        {
            "kind": "capability_check",
            "subtask_id": subtask.subtask_id,
            "decision": Decision.DENY.value,
            "reason_codes": [CapabilityDenied.code],
            "reasons": [message],
        },
    )


def _manifest_refusal(manifest: CapabilityManifest, node: NodeCall, host: str) -> str:
    try:
        manifest.check(node.operation, host or None, node.arguments)
    except CapabilityDenied as exc:
        dropped = [
            f"{item.reason_code}: {item.reason}"
            for item in manifest.dropped if item.operation == node.operation
        ]
        return " ".join([exc.message, *(f"(compiler: {text})" for text in dropped)])
    return ""


def _policy_refusal(node: NodeCall, decision: PolicyDecision, refusal: str) -> ExecutionOutcome:
    codes = ", ".join(decision.reason_codes)
    reason = f"Refused by policy ({codes}) before any portal action: {' '.join(decision.reasons)}"
    if refusal:
        reason += f" {refusal}"
    return ExecutionOutcome(
        success=False,
        error=reason,
        error_code="policy_denied",
        retryable=False,
        abort_run=True,
        data={"operation": node.operation, "reason_codes": decision.reason_codes},
    )


async def _keep_alive(context: SkillContext) -> None:
    """Touch the portal while a person decides, so the session does not expire (the form is not filled yet)."""
    from finrpa.skills.builtin.keep_alive import KeepAliveParams, SessionKeepAliveSkill

    await SessionKeepAliveSkill().touch(KeepAliveParams(duration_s=1, interval_s=1), context)


def _reference(result: SkillResult) -> str | None:
    for key in ("reference", "application_number", "claim_number", "filing_number", "order_number"):
        value = result.data.get(key)
        if value:
            return str(value)
    return None


def _last_screenshot(events: list[NewEvent]) -> dict[str, Any] | None:
    for event in reversed(events):
        shot = event.payload.get("screenshot_after") or event.payload.get("screenshot_before")
        if shot:
            return dict(shot)
    return None
