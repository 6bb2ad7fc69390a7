"""Executing one subtask of a run: the skill, in the run's browser, through the effect ledger for writes.

The executor is the coordinator's only way to touch the world. Read steps simply run their skill. A step
that changes a portal first commits ``started`` in the effect ledger; if the ledger already knows the effect
it is not repeated (succeeded), or the portal is asked first whether it happened (reconcile) and a person
decides when the portal cannot tell.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import ExecutionOutcome
from finrpa.agents.events import EventType
from finrpa.agents.plan import CoordinationState, SkillCall, SubTask
from finrpa.browser import Controller, RunBrowser
from finrpa.runs import effects
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.gate import ApprovalGate
from finrpa.runs.journal import check_fence
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.skills.base import BaseSkill, ReconcileOutcome, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SecretResolver, SkillContext
from finrpa.skills.portal_state import transient_error
from finrpa.skills.registry import get_skill

T = TypeVar("T")
_START_PAGE_ATTEMPTS = 3
Transaction = Callable[[Callable[[AsyncSession], Awaitable[T]]], Awaitable[T]]


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

        async def check(session: AsyncSession) -> None:
            check_fence(await RunRepository(session).get(self.identity.run_id), self.fencing_token)

        await self.transaction(check)

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
        if call.side_effect is SideEffect.READ:
            outcome = self._outcome(await skill.run(call.params, context))
        else:
            outcome = await self._effect(skill, subtask, context)
        outcome.duration_ms = int((time.perf_counter() - started) * 1000)
        return outcome

    async def _effect(self, skill: BaseSkill[Any], subtask: SubTask, context: SkillContext) -> ExecutionOutcome:
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
            verdict = await self.gate.check(
                self.identity, self.fencing_token, subtask, call, keep_alive=lambda: _keep_alive(context)
            )
            ledger.extend(verdict.events)
            if not verdict.proceed:
                await self._settle(key, effects.EffectState.NOT_DONE, None, verdict.reason)
                return ExecutionOutcome(
                    success=False, error=verdict.reason, error_code="approval_not_given", retryable=False, events=ledger
                )
        result = await skill.run(call.params, context)
        outcome = self._outcome(result)
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

    def _outcome(self, result: SkillResult) -> ExecutionOutcome:
        data = dict(result.data)
        if result.artifacts:
            data["artifacts"] = [artifact.model_dump() for artifact in result.artifacts]
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
        return self._outcome(await compensation.run(call.params, await self._context(subtask)))


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
