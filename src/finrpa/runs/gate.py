"""The gate in front of every portal-changing step: risk detection decides whether a person must approve first;
if so the run waits (status WAITING_APPROVAL, the portal session kept alive) for an eligible approver, and only an
approval for exactly this action lets the step proceed. Rejection and timeout stop the step. Deterministic code
decides; an LLM, when configured, can only raise the risk of a write."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.agents.events import EventType
from finrpa.agents.plan import SkillCall, SubTask
from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.service import approvals_transaction
from finrpa.approvals.waiter import wait_for_decision
from finrpa.audit.service import AuditService
from finrpa.bus import Bus
from finrpa.config import Settings
from finrpa.risk.schemas import RiskDecision, RiskInput
from finrpa.risk.service import RiskAssessor
from finrpa.runs.journal import Transition, commit_transition
from finrpa.runs.models import RunEvent
from finrpa.runs.repository import NewEvent

KeepAlive = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class GateVerdict:
    proceed: bool
    events: list[NewEvent]
    reason: str = ""
    approval_id: str | None = None


def flatten_values(params: dict[str, Any]) -> dict[str, Any]:
    """The values a step would type, as risk detection reads them (labels → values, nested dicts flattened)."""
    values: dict[str, Any] = {}
    for key, value in params.items():
        if isinstance(value, dict):
            values.update({str(k): v for k, v in flatten_values(value).items()})
        elif isinstance(value, str | int | float | bool) and not str(value).startswith("secret://"):
            values[key] = value
    return values


def risk_event(subtask: SubTask, decision: RiskDecision) -> NewEvent:
    return NewEvent(
        EventType.RISK_DECISION,
        {
            "subtask_id": subtask.subtask_id,
            "level": decision.final_level.value,
            "requires_approval": decision.requires_approval,
            "reasons": decision.reasons[:10],
        },
    )


def proposed_action(call: SkillCall) -> dict[str, Any]:
    """The exact action an approval is bound to (its hash): skill, business id and every parameter."""
    return {"skill": call.skill, "business_id": call.business_id, "params": call.params}


class ApprovalGate:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        audit: AuditService,
        bus: Bus,
        risk: RiskAssessor,
        *,
        domain: str,
        keepalive_s: float = 120.0,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.audit = audit
        self.bus = bus
        self.risk = risk
        self.domain = domain
        self.keepalive_s = keepalive_s

    async def assess(self, subtask: SubTask, call: SkillCall) -> RiskDecision:
        return await self.risk.assess(
            RiskInput(
                id=subtask.subtask_id,
                domain=self.domain,
                page_title=subtask.goal,
                action_type="submit",
                target_text=subtask.goal,
                values=flatten_values(call.params),
                effect=call.side_effect.value,
            )
        )

    async def check(
        self,
        run: Any,
        fencing_token: int,
        subtask: SubTask,
        call: SkillCall | None,
        keep_alive: KeepAlive | None,
        *,
        risk: RiskDecision | None = None,
        policy_approval: list[str] | None = None,
        action: dict[str, Any] | None = None,
    ) -> GateVerdict:
        """Let the step proceed, or make the run wait for an approval first. ``risk`` is the decision the caller
        already recorded (assessed here otherwise); ``policy_approval`` holds the reasons (with their codes) of
        a policy that requires approval, shown to the approvers beside the risk reasons. ``action`` is what the
        approval is bound to when it is not a skill call (a browser action an LLM proposed)."""
        events: list[NewEvent] = []
        if risk is None:
            if call is None:
                raise ValueError("a gate check without a skill call needs the caller's risk decision")
            risk = await self.assess(subtask, call)
            events.append(risk_event(subtask, risk))
        if not risk.requires_approval and not policy_approval:
            return GateVerdict(True, events)
        decision = risk
        if policy_approval:
            reasons = [*policy_approval, *risk.reasons]
            decision = risk.model_copy(update={"reasons": reasons, "requires_approval": True})
        if action is None:
            if call is None:
                raise ValueError("a gate check without a skill call needs the action to bind the approval to")
            action = proposed_action(call)
        # The request, the run's events and its waiting state commit together: a request is never left behind by a
        # run that could not be marked waiting (fenced off by another worker), nor a run waiting on no request.
        async with approvals_transaction(self.sessions, self.settings, audit=self.audit, bus=self.bus) as approvals:
            attempt = await _approval_attempt(approvals.session, run.id, subtask.subtask_id)
            approval = await approvals.request(
                run.id,
                subtask.subtask_id,
                action,
                decision,
                requested_by=run.created_by,
                dept_id=run.dept_id,
                bl_id=run.bl_id,
                org_id=run.org_id,
                attempt=attempt,
            )
            requested = NewEvent(
                EventType.APPROVAL_REQUESTED,
                {
                    "subtask_id": subtask.subtask_id,
                    "approval_id": approval.id,
                    "level": decision.final_level.value,
                    "required": approval.required_approvals,
                    "attempt": attempt,
                },
            )
            waiting = Transition(events=[*events, requested], status="WAITING_APPROVAL")
            await commit_transition(approvals.session, run.id, fencing_token, waiting)
        status = approval.status
        if not status.is_final:
            status = await self._wait(approval.id, keep_alive)
        decided = NewEvent(
            EventType.APPROVAL_DECIDED,
            {
                "subtask_id": subtask.subtask_id,
                "approval_id": approval.id,
                "status": status.value,
            },
        )
        if status is ApprovalStatus.APPROVED:
            return GateVerdict(True, [decided], approval_id=approval.id)
        reason = {
            ApprovalStatus.REJECTED: "the approver rejected the action",
            ApprovalStatus.TIMEOUT: "no eligible approver decided in time (treated as rejected)",
            ApprovalStatus.CANCELLED: "the approval request was cancelled",
        }.get(status, f"the approval ended {status.value}")
        return GateVerdict(False, [decided], reason=f"Not submitted: {reason}.", approval_id=approval.id)

    async def _wait(self, approval_id: str, keep_alive: KeepAlive | None) -> ApprovalStatus:
        waiter = asyncio.create_task(
            wait_for_decision(self.sessions, self.bus, approval_id, audit=self.audit, settings=self.settings)
        )
        try:
            while True:
                done, _ = await asyncio.wait({waiter}, timeout=self.keepalive_s)
                if done:
                    return waiter.result()
                if keep_alive is not None:
                    with contextlib.suppress(Exception):
                        await keep_alive()
        finally:  # the run stopped waiting (cancelled, its worker closing): the waiter and its session go too
            if not waiter.done():
                waiter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await waiter


async def _approval_attempt(session: AsyncSession, run_id: str, subtask_id: str) -> int:
    """Which approval attempt the step is on: how often a person answered its NEEDS_HUMAN with "retry". Read from the
    run's event log, so a resumed worker finds the request it was waiting on, and a retry after a rejection or a
    timeout asks afresh instead of finding the old decision."""
    statement = select(RunEvent.payload).where(
        RunEvent.run_id == run_id, RunEvent.type == EventType.HUMAN_RESOLUTION.value
    )
    resolutions = (await session.execute(statement)).scalars().all()
    return sum(1 for p in resolutions if p.get("subtask_id") == subtask_id and p.get("action") == "retry")
