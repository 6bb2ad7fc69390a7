"""The approvals service (SPEC §C11): ask for approval of a risky action, decide it, time it out, list queues.

Services never commit. Every request, decision, timeout and cancellation writes its audit row (and, for a
new request or a timeout, its notification) in the caller's transaction, so they commit or roll back with
the state change. Waiters are woken through the bus only AFTER the commit: the service collects wake-ups
and :meth:`ApprovalService.publish_wakeups` sends them once the transaction is over
(:func:`approvals_transaction` does both). A lost wake-up only costs latency: waiters re-read the database.

Usage from a run step::

    async with approvals_transaction(sessions, settings, audit=audit, bus=bus) as approvals:
        approval = await approvals.request(run_id, subtask_id, action, risk, requested_by=run.created_by,
                                           dept_id=run.dept_id, bl_id=run.bl_id, org_id=run.org_id,
                                           evidence=screenshot)
    status = await wait_for_decision(sessions, bus, approval.id, audit=audit)  # finrpa.approvals.waiter
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.approvals.errors import (
    ApprovalActionChangedError,
    ApprovalAlreadyDecidedError,
    ApprovalExpiredError,
    DecisionAlreadyRecordedError,
    InvalidApprovalRequestError,
)
from finrpa.approvals.models import NO_REQUESTER, ApprovalDecision, ApprovalRequest, ApprovalStatus, Verdict
from finrpa.approvals.payload import payload_hash, sanitized_action, summarize
from finrpa.approvals.repository import ApprovalRepository
from finrpa.approvals.rules import check_eligible, is_eligible, terms_for
from finrpa.approvals.schemas import Approval, DecisionView, RiskSummary
from finrpa.audit.events import AuditEntry, EventType
from finrpa.audit.service import AuditService
from finrpa.bus.port import Bus, BusUnavailableError
from finrpa.config import Settings
from finrpa.db.base import new_id, utcnow
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import ConflictError, NotFoundError
from finrpa.identity.permissions import Principal
from finrpa.notify.events import ApprovalRequested, ApprovalTimedOut
from finrpa.notify.outbox import enqueue
from finrpa.objectstore.port import StoredObject
from finrpa.risk.schemas import RiskDecision

logger = logging.getLogger(__name__)

MAX_COMMENT_CHARS = 2000
_QUEUE_SCAN = 1000  # pending requests looked at when building one approver's queue
_TIMEOUT_NOTE = "no decision before the deadline; counts as rejected"


def approval_channel(approval_id: str) -> str:
    """The bus channel a request's waiters listen on."""
    return f"approval:{approval_id}"


@dataclass(frozen=True, slots=True)
class Wakeup:
    channel: str
    message: str


class ApprovalService:
    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        *,
        audit: AuditService,
        bus: Bus | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.session = session
        self.settings = settings
        self.audit = audit
        self.bus = bus
        self.repo = ApprovalRepository(session)
        self._clock = clock
        self._wakeups: list[Wakeup] = []

    # -- asking ---------------------------------------------------------------------------------------

    async def request(
        self,
        run_id: str,
        subtask_id: str,
        action: Mapping[str, object],
        risk: RiskSummary | RiskDecision | Mapping[str, object],
        requested_by: str | None,
        dept_id: str | None,
        bl_id: str | None,
        org_id: str,
        evidence: StoredObject | None = None,
        *,
        attempt: int = 0,
    ) -> Approval:
        """Ask approvers to decide ``action``; idempotent per (run, subtask, payload hash, attempt).

        Asking again for the same action in the same attempt (e.g. after a crash) returns the existing request
        whatever its status, so a decision made meanwhile is honoured. A later ``attempt`` (the step was retried
        by a person after a rejection or a timeout) is a new request. Asking for a different action of the same
        subtask cancels the older pending request: approvers never approve an action that is no longer proposed.
        """
        _check_ids(run_id, subtask_id, requested_by)
        _check_attempt(attempt)
        summary = RiskSummary.of(risk)
        digest = payload_hash(action)
        existing = await self.repo.by_payload(run_id, subtask_id, digest, attempt)
        if existing is not None:
            return await self._view(existing)
        masked = sanitized_action(action)
        values = _request_values(masked, summary, self.settings, self._clock())
        values.update(
            id=new_id(), org_id=org_id, dept_id=dept_id, bl_id=bl_id, run_id=run_id, subtask_id=subtask_id,
            payload_hash=digest, attempt=attempt, requested_by=requested_by or NO_REQUESTER,
            **_evidence_columns(evidence),
        )  # fmt: skip
        approval_id = await self.repo.insert_request(values)
        if approval_id is None:  # another worker asked for the same action at the same moment
            return await self._view(await self._by_payload(run_id, subtask_id, digest, attempt))
        await self.cancel_pending(run_id, "the proposed action changed", subtask_id=subtask_id, keep=approval_id)
        approval = await self.get(approval_id)
        await self.audit.append(self.session, _requested_entry(approval, evidence))
        await enqueue(self.session, _requested_event(approval), now=approval.created_at)
        return approval

    # -- deciding -------------------------------------------------------------------------------------

    async def decide(
        self,
        approval_id: str,
        approver: Principal,
        approve: bool,
        comment: str = "",
        *,
        payload_hash: str | None = None,
    ) -> Approval:
        """Record ``approver``'s verdict; the request is decided once, whoever races.

        Eligibility (role, grant, never the requester) is checked first. The same approver deciding the same
        way again is a no-op that returns the request (decisions are idempotent); deciding the other way is
        refused. ``payload_hash``, when given, must be the hash the approver was shown. Rejection finalises
        REJECTED; approval finalises APPROVED once ``required_approvals`` distinct approvers agreed.
        """
        if len(comment) > MAX_COMMENT_CHARS:
            raise InvalidApprovalRequestError(f"A comment has at most {MAX_COMMENT_CHARS} characters.")
        row = await self._row(approval_id)
        approval = await self._view(row)
        check_eligible(approval, approver)
        verdict = Verdict.APPROVE if approve else Verdict.REJECT
        previous = await self.repo.decision_of(approval_id, approver.user_id)
        if previous is not None:
            return await self._repeat(approval_id, previous, verdict)
        now = self._clock()
        _check_open(approval, now, payload_hash)
        if not await self.repo.insert_decision(row, approver.user_id, verdict, comment, now):
            # The same approver, concurrently: their other call recorded the decision.
            return await self._repeat(approval_id, await self._decision(approval_id, approver.user_id), verdict)
        await self._count(approval_id, approver, verdict, now)
        decided = await self.get(approval_id)
        await self.audit.append(self.session, _decision_entry(decided, approver, verdict, comment))
        self._wake(decided)
        return decided

    async def _count(self, approval_id: str, approver: Principal, verdict: Verdict, now: datetime) -> None:
        """The one conditional UPDATE that decides who wins; raises for the losers (roll back the unit of work)."""
        who = approver.username or approver.user_id
        if verdict is Verdict.APPROVE:
            won = await self.repo.count_approval(approval_id, now, f"approved; last approval by {who}")
        else:
            won = await self.repo.reject(approval_id, now, f"rejected by {who}")
        if not won:
            raise ApprovalAlreadyDecidedError(await self._closed_sentence(approval_id))

    async def _repeat(self, approval_id: str, previous: ApprovalDecision, verdict: Verdict) -> Approval:
        if Verdict(previous.verdict) is verdict:
            return await self.get(approval_id)
        raise DecisionAlreadyRecordedError(
            f"You already chose {previous.verdict} on approval {approval_id}; a recorded decision cannot be "
            "changed. Ask another approver to reject it, or let it time out."
        )

    # -- closing without a verdict --------------------------------------------------------------------

    async def expire_due(self, now: datetime | None = None, *, limit: int = 500) -> list[Approval]:
        """Mark TIMEOUT every PENDING request (visible in the current context) whose deadline passed."""
        now = now or self._clock()
        expired: list[Approval] = []
        for approval_id in await self.repo.due(now, limit):
            if await self.repo.time_out(approval_id, now, _TIMEOUT_NOTE, only_due=True):
                expired.append(await self._timed_out(approval_id))
        return expired

    async def time_out(self, approval_id: str) -> Approval:
        """Mark TIMEOUT now, if still PENDING (the waiter gave up); returns the request's final state."""
        if await self.repo.time_out(approval_id, self._clock(), _TIMEOUT_NOTE, only_due=False):
            return await self._timed_out(approval_id)
        return await self.get(approval_id)

    async def _timed_out(self, approval_id: str) -> Approval:
        approval = await self.get(approval_id)
        await self.audit.append(self.session, _closed_entry(approval, "timeout"))
        event = ApprovalTimedOut(
            org_id=approval.org_id,
            approval_id=approval.id,
            run_id=approval.run_id,
            action_summary=approval.action_summary,
        )
        await enqueue(self.session, event, now=approval.decided_at)
        self._wake(approval)
        return approval

    async def cancel_pending(
        self, run_id: str, reason: str, *, subtask_id: str | None = None, keep: str | None = None
    ) -> list[Approval]:
        """Cancel the run's PENDING requests (e.g. the run was aborted); ``keep`` is left alone."""
        cancelled: list[Approval] = []
        now = self._clock()
        for approval_id in await self.repo.pending_of_run(run_id, subtask_id):
            if approval_id != keep and await self.repo.cancel(approval_id, now, f"cancelled: {reason}"):
                approval = await self.get(approval_id)
                await self.audit.append(self.session, _closed_entry(approval, "cancel"))
                self._wake(approval)
                cancelled.append(approval)
        return cancelled

    # -- reading --------------------------------------------------------------------------------------

    async def get(self, approval_id: str) -> Approval:
        """The request with its decisions; NotFoundError when it is not visible to the current context."""
        return await self._view(await self._row(approval_id))

    async def pending_for(self, principal: Principal, *, limit: int = 100) -> list[Approval]:
        """The approver's queue: open requests they may decide and have not decided yet, oldest first."""
        rows = await self.repo.pending(now=self._clock(), limit=_QUEUE_SCAN)
        candidates = [Approval.of(row) for row in rows]
        eligible = [approval for approval in candidates if is_eligible(approval, principal)]
        done = await self.repo.decided_by(principal.user_id, [approval.id for approval in eligible])
        queue = [approval for approval in eligible if approval.id not in done][:limit]
        return [await self.get(approval.id) for approval in queue]

    async def recent(self, *, status: ApprovalStatus | None = None, limit: int = 50) -> list[Approval]:
        """Requests visible in the current context, newest first."""
        return [await self._view(row) for row in await self.repo.recent(status=status, limit=limit)]

    async def queue_page(
        self,
        principal: Principal,
        *,
        run_id: str | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[Approval]:
        """One page of the approver's queue, oldest first, strictly after the keyset position ``after``."""
        found: list[Approval] = []
        while len(found) < limit:
            rows = await self.repo.open_page(now=self._clock(), run_id=run_id, after=after, limit=_QUEUE_SCAN)
            eligible = [approval for approval in map(Approval.of, rows) if is_eligible(approval, principal)]
            done = await self.repo.decided_by(principal.user_id, [approval.id for approval in eligible])
            found.extend(approval for approval in eligible if approval.id not in done)
            if len(rows) < _QUEUE_SCAN:
                break
            after = (rows[-1].created_at, rows[-1].id)
        return [await self.get(approval.id) for approval in found[:limit]]

    async def page(
        self,
        *,
        status: ApprovalStatus | None = None,
        run_id: str | None = None,
        before: tuple[datetime, str] | None = None,
        limit: int = 50,
    ) -> list[Approval]:
        """Requests visible in the current context, newest first, strictly before the keyset position ``before``."""
        rows = await self.repo.page(status=status, run_id=run_id, before=before, limit=limit)
        return [await self._view(row) for row in rows]

    # -- waking waiters -------------------------------------------------------------------------------

    @property
    def wakeups(self) -> tuple[Wakeup, ...]:
        """Messages waiting to be published once the transaction has committed."""
        return tuple(self._wakeups)

    async def publish_wakeups(self) -> int:
        """Publish the collected wake-ups; call after the commit. Returns how many were sent.

        A bus failure is logged, not raised: the decision is committed and waiters fall back to reading
        the database.
        """
        if self.session.in_transaction():
            raise ConflictError(
                "Wake-ups are published after the commit; end the unit of work first (or use approvals_transaction)."
            )
        pending, self._wakeups = self._wakeups, []
        if self.bus is None:
            return 0
        sent = 0
        for wakeup in pending:
            try:
                await self.bus.publish(wakeup.channel, wakeup.message)
                sent += 1
            except BusUnavailableError as exc:
                logger.warning(
                    "approvals.wakeup_not_published", extra={"channel": wakeup.channel, "error": exc.message}
                )
        return sent

    def _wake(self, approval: Approval) -> None:
        message = json.dumps({"approval_id": approval.id, "status": approval.status.value})
        self._wakeups.append(Wakeup(approval_channel(approval.id), message))

    # -- helpers --------------------------------------------------------------------------------------

    async def _row(self, approval_id: str) -> ApprovalRequest:
        row = await self.repo.get(approval_id)
        if row is None:
            raise NotFoundError(f"No approval {approval_id!r}; `finrpa approvals list` shows the open ones.")
        return row

    async def _by_payload(self, run_id: str, subtask_id: str, digest: str, attempt: int) -> ApprovalRequest:
        row = await self.repo.by_payload(run_id, subtask_id, digest, attempt)
        if row is None:  # pragma: no cover - the conflicting row is committed before ON CONFLICT gives way
            raise ConflictError("The approval request was being created concurrently; ask again.", retryable=True)
        return row

    async def _decision(self, approval_id: str, approver_user_id: str) -> ApprovalDecision:
        decision = await self.repo.decision_of(approval_id, approver_user_id)
        if decision is None:  # pragma: no cover - ON CONFLICT only gives way to a committed row
            raise ConflictError("Your decision was being recorded concurrently; look at the approval again.")
        return decision

    async def _view(self, row: ApprovalRequest) -> Approval:
        decisions = tuple(DecisionView.of(decision) for decision in await self.repo.decisions(row.id))
        return Approval.of(row, decisions)

    async def _closed_sentence(self, approval_id: str) -> str:
        approval = await self.get(approval_id)
        if approval.status is ApprovalStatus.PENDING:
            return f"Approval {approval_id} expired before this decision; it counts as rejected."
        return f"Approval {approval_id} was {approval.status.value} ({approval.resolution}) before this decision."


@asynccontextmanager
async def approvals_transaction(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, *, audit: AuditService, bus: Bus | None
) -> AsyncIterator[ApprovalService]:
    """One unit of work with an ApprovalService; commits, then publishes the wake-ups."""
    async with unit_of_work(sessions) as session:
        service = ApprovalService(session, settings, audit=audit, bus=bus)
        yield service
    await service.publish_wakeups()


def _check_ids(run_id: str, subtask_id: str, requested_by: str | None) -> None:
    if not run_id or len(run_id) > 32 or not subtask_id or len(subtask_id) > 64:
        raise InvalidApprovalRequestError(
            "An approval request needs the run id (at most 32 characters) and the subtask id (at most 64)."
        )
    if requested_by is not None and len(requested_by) > 64:
        raise InvalidApprovalRequestError("requested_by is a user id of at most 64 characters.")


def _check_attempt(attempt: int) -> None:
    if attempt < 0:
        raise InvalidApprovalRequestError(
            f"An approval attempt is 0 for a step's first request and grows with each retry; got {attempt}."
        )


def _check_open(approval: Approval, now: datetime, shown_hash: str | None) -> None:
    if approval.status.is_final:
        raise ApprovalAlreadyDecidedError(
            f"Approval {approval.id} is already {approval.status.value} ({approval.resolution}); nothing to decide."
        )
    if now >= approval.expires_at:
        raise ApprovalExpiredError(
            f"Approval {approval.id} expired at {approval.expires_at:%Y-%m-%d %H:%M:%S} UTC and counts as rejected; "
            "the run must ask again if the action is still needed."
        )
    if shown_hash is not None and shown_hash != approval.payload_hash:
        raise ApprovalActionChangedError(
            f"Approval {approval.id} is for another version of the action than the one you reviewed; "
            "open it again and decide on what it shows now."
        )


def _request_values(
    masked: dict[str, object], risk: RiskSummary, settings: Settings, now: datetime
) -> dict[str, object]:
    terms = terms_for(risk.level, settings)
    return {
        "action": masked,
        "action_summary": summarize(masked),
        "risk_level": risk.level.value,
        "risk_reasons": list(risk.reasons),
        "required_approvals": terms.required_approvals,
        "approvals": 0,
        "status": ApprovalStatus.PENDING.value,
        "timeout_s": terms.timeout_s,
        "expires_at": now + timedelta(seconds=terms.timeout_s),
        "created_at": now,
    }


def _evidence_columns(evidence: StoredObject | None) -> dict[str, object]:
    if evidence is None:
        return {}
    return {
        "evidence_bucket": evidence.bucket,
        "evidence_key": evidence.key,
        "evidence_sha256": evidence.sha256,
        "evidence_size": evidence.size,
    }


def _requested_event(approval: Approval) -> ApprovalRequested:
    return ApprovalRequested(
        org_id=approval.org_id,
        approval_id=approval.id,
        run_id=approval.run_id,
        action_summary=approval.action_summary,
        risk_level=approval.risk.level.value,
        requested_by=approval.requested_by or "system",
        department=approval.dept_id,
        required_approvals=approval.required_approvals,
        expires_at=approval.expires_at,
    )


def _details(approval: Approval, **extra: object) -> dict[str, object]:
    return {
        "payload_hash": approval.payload_hash,
        "risk_level": approval.risk.level.value,
        "status": approval.status.value,
        "approvals": approval.approvals,
        "required_approvals": approval.required_approvals,
        **extra,
    }


def _requested_entry(approval: Approval, evidence: StoredObject | None) -> AuditEntry:
    return AuditEntry(
        org_id=approval.org_id,
        action_type=EventType.APPROVAL_REQUESTED.value,
        executor="agent",
        task_id=approval.run_id,
        dept_id=approval.dept_id,
        bl_id=approval.bl_id,
        user_id=approval.requested_by,
        target_element=f"subtask {approval.subtask_id}",
        input_value=approval.action,
        screenshot_before=evidence,
        approval_id=approval.id,
        execution_result="requested",
        details=_details(
            approval, risk_reasons=list(approval.risk.reasons), expires_at=approval.expires_at.isoformat()
        ),
    )


def _decision_entry(approval: Approval, approver: Principal, verdict: Verdict, comment: str) -> AuditEntry:
    return AuditEntry(
        org_id=approval.org_id,
        action_type=EventType.APPROVAL_DECISION.value,
        executor=f"human:{approver.user_id}",
        task_id=approval.run_id,
        dept_id=approval.dept_id,
        bl_id=approval.bl_id,
        user_id=approver.user_id,
        target_element=f"subtask {approval.subtask_id}",
        input_value=verdict.value,
        has_approval=approval.status is ApprovalStatus.APPROVED,
        approval_id=approval.id,
        approver_user_id=approver.user_id,
        execution_result=approval.status.value,
        details=_details(approval, comment=comment),
    )


def _closed_entry(approval: Approval, verdict: str) -> AuditEntry:
    return AuditEntry(
        org_id=approval.org_id,
        action_type=EventType.APPROVAL_DECISION.value,
        executor="system",
        task_id=approval.run_id,
        dept_id=approval.dept_id,
        bl_id=approval.bl_id,
        target_element=f"subtask {approval.subtask_id}",
        input_value=verdict,
        approval_id=approval.id,
        execution_result=approval.status.value,
        details=_details(approval, resolution=approval.resolution),
    )
