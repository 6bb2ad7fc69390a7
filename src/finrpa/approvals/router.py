"""HTTP routes of approvals (``/approvals``, SPEC §C11, §C13): the caller's queue, one request with its evidence,
and the caller's decision.

Visibility is the tenant scope: a request of another organisation — or of a department the caller cannot
see — does not exist for the caller (404). Deciding goes through :meth:`ApprovalService.decide`, which checks
eligibility (approver of the department or CROSS_DEPT_APPROVE, never the requester), counts each approver
once, finalises the request race-safely and writes the APPROVAL_DECISION audit row in the request's unit of
work; waiting runs are woken after the commit. Showing a request issues an expiring link to its evidence
screenshot, and that issuing is itself audited.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, BackgroundTasks, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.approvals.errors import ApproverNotEligibleError, RequesterCannotApproveError
from finrpa.approvals.models import ApprovalStatus, Verdict
from finrpa.approvals.rules import approval_resource, check_eligible
from finrpa.approvals.schemas import Approval, Evidence
from finrpa.approvals.service import MAX_COMMENT_CHARS, ApprovalService
from finrpa.audit.events import AuditEntry, EventType
from finrpa.audit.schemas import AuditQuery
from finrpa.bus.factory import build_bus
from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.http.caller import CurrentUser, DbSession, State, require
from finrpa.http.idempotency import Idempotency
from finrpa.http.pagination import DEFAULT_LIMIT, MAX_LIMIT, KeysetCursor
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.http.state import ApiState
from finrpa.identity.models import Department, User
from finrpa.identity.permissions import Action, Principal
from finrpa.risk.levels import RiskLevel

router = APIRouter(prefix="/approvals", tags=["approvals"], responses=PROBLEM_RESPONSES)

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
ApprovalId = Annotated[str, Path(pattern=ID_PATTERN, description="The approval request's id.")]
CannotDecide = Literal["not_pending", "expired", "own_request", "not_eligible", "already_decided"]


# -- shapes ------------------------------------------------------------------------------------------------


class Person(BaseModel):
    user_id: str
    username: str | None = Field(description="None when the user is not (or no longer) in the directory.")
    display_name: str | None


class DepartmentRef(BaseModel):
    id: str
    name: str | None


class ApprovalSummary(BaseModel):
    """One line of the inbox."""

    id: str
    run_id: str
    subtask_id: str
    attempt: int = Field(description="0 for the step's first request; one more each time a person retried the step.")
    status: ApprovalStatus
    action_summary: str
    risk_level: RiskLevel
    risk_reasons: list[str]
    required_approvals: int
    approvals: int = Field(description="Distinct approvals so far.")
    requested_by: str | None = Field(description="User id of the requester; None when the platform asked.")
    dept_id: str | None
    bl_id: str | None
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None


class ApprovalPage(BaseModel):
    items: list[ApprovalSummary]
    next_cursor: str | None = Field(None, description="Pass as `cursor` for the next page.")


class DecisionEntry(BaseModel):
    approver: Person
    verdict: Verdict
    comment: str
    decided_at: datetime


class EvidenceLink(BaseModel):
    """The screenshot shown with the request: the one attached to it, else the run's last one before it."""

    source: Literal["request", "run"]
    sha256: str | None
    url: str = Field(description="Expiring download link; issuing it was recorded in the audit trail.")
    expires_at: datetime


class ApprovalDetail(ApprovalSummary):
    action: dict[str, object] = Field(description="The proposed action exactly as it will run, masked.")
    payload_hash: str = Field(description="Send it back with the decision: it binds the decision to this action.")
    timeout_s: int
    resolution: str | None
    requester: Person | None
    department: DepartmentRef | None
    decisions: list[DecisionEntry] = Field(description="Each approver's verdict so far, oldest first.")
    evidence: EvidenceLink | None = Field(
        description="Issued when the request is shown (GET); the decision's answer leaves it out."
    )
    can_decide: bool = Field(description="Whether the caller may approve or reject it now.")
    cannot_decide: CannotDecide | None = Field(description="Why not, as a code.")
    cannot_decide_reason: str | None = Field(description="Why not, as a sentence.")


class DecisionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Verdict
    comment: str = Field("", max_length=MAX_COMMENT_CHARS)
    payload_hash: str = Field(
        pattern=r"^[0-9a-f]{64}$", description="The payload_hash of the request as it was shown to you."
    )


# -- routes ------------------------------------------------------------------------------------------------


@router.get("", summary="My approval queue (or, with status, the requests I can see)")
async def list_approvals(
    caller: CurrentUser,
    session: DbSession,
    state: State,
    status: Annotated[
        ApprovalStatus | None,
        Query(
            description="Without it: the requests waiting for YOUR decision, oldest first. With it: the "
            "requests in that status in your departments, newest first."
        ),
    ] = None,
    run_id: Annotated[str | None, Query(pattern=ID_PATTERN, description="Only this run's requests.")] = None,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> ApprovalPage:
    service = ApprovalService(session, state.settings, audit=state.audit)
    position = KeysetCursor.decode(cursor) if cursor else None
    keyset = (position.created_at, position.id) if position else None
    if status is None:
        found = await service.queue_page(caller.principal, run_id=run_id, after=keyset, limit=limit + 1)
    else:
        found = await service.page(status=status, run_id=run_id, before=keyset, limit=limit + 1)
    page = found[:limit]
    next_cursor = KeysetCursor(page[-1].created_at, page[-1].id).encode() if len(found) > limit else None
    return ApprovalPage(items=[_summary(approval) for approval in page], next_cursor=next_cursor)


@router.get("/{approval_id}", summary="One approval request: action, risk, evidence, progress, whether I may decide")
async def get_approval(
    approval_id: ApprovalId, caller: CurrentUser, session: DbSession, state: State
) -> ApprovalDetail:
    approval = await ApprovalService(session, state.settings, audit=state.audit).get(approval_id)
    require(caller, Action.READ, approval_resource(approval))
    evidence = await _evidence_link(session, state, approval, caller.principal.user_id)
    return await _detail(session, approval, caller.principal, evidence)


@router.post("/{approval_id}/decision", summary="Approve or reject a request (maker-checker; each approver once)")
async def decide_approval(
    approval_id: ApprovalId,
    body: DecisionRequest,
    caller: CurrentUser,
    session: DbSession,
    state: State,
    idempotency: Idempotency,
    background: BackgroundTasks,
) -> ApprovalDetail:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    service = ApprovalService(session, state.settings, audit=state.audit)
    approval = await service.decide(
        approval_id,
        caller.principal,
        body.verdict is Verdict.APPROVE,
        body.comment,
        payload_hash=body.payload_hash,
    )
    detail = await _detail(session, approval, caller.principal, None)
    await idempotency.remember(session, body, 200, detail.model_dump(mode="json"))
    background.add_task(_wake_waiters, service, state.settings)
    return detail


# -- helpers of this module --------------------------------------------------------------------------------


async def _wake_waiters(service: ApprovalService, settings: Settings) -> None:
    """After the commit: tell the waiting run (through the bus) that its request was decided."""
    service.bus = build_bus(settings)
    try:
        await service.publish_wakeups()
    finally:
        await service.bus.close()


def _summary(approval: Approval) -> ApprovalSummary:
    return ApprovalSummary(
        id=approval.id,
        run_id=approval.run_id,
        subtask_id=approval.subtask_id,
        attempt=approval.attempt,
        status=approval.status,
        action_summary=approval.action_summary,
        risk_level=approval.risk.level,
        risk_reasons=list(approval.risk.reasons),
        required_approvals=approval.required_approvals,
        approvals=approval.approvals,
        requested_by=approval.requested_by,
        dept_id=approval.dept_id,
        bl_id=approval.bl_id,
        created_at=approval.created_at,
        expires_at=approval.expires_at,
        decided_at=approval.decided_at,
    )


async def _detail(
    session: AsyncSession, approval: Approval, viewer: Principal, evidence: EvidenceLink | None
) -> ApprovalDetail:
    people = await _people(session, [approval.requested_by, *(d.approver_user_id for d in approval.decisions)])
    department = await session.get(Department, approval.dept_id) if approval.dept_id else None
    blocked, reason = _cannot_decide(approval, viewer)
    return ApprovalDetail(
        **_summary(approval).model_dump(),
        action=approval.action,
        payload_hash=approval.payload_hash,
        timeout_s=approval.timeout_s,
        resolution=approval.resolution,
        requester=people[approval.requested_by] if approval.requested_by else None,
        department=DepartmentRef(id=approval.dept_id, name=department.name if department else None)
        if approval.dept_id
        else None,
        decisions=[
            DecisionEntry(
                approver=people[d.approver_user_id], verdict=d.verdict, comment=d.comment, decided_at=d.decided_at
            )
            for d in approval.decisions
        ],
        evidence=evidence,
        can_decide=blocked is None,
        cannot_decide=blocked,
        cannot_decide_reason=reason,
    )


async def _people(session: AsyncSession, user_ids: list[str | None]) -> dict[str, Person]:
    wanted = {user_id for user_id in user_ids if user_id}
    users = (await session.scalars(select(User).where(User.id.in_(wanted)))).all() if wanted else []
    known = {user.id: Person(user_id=user.id, username=user.username, display_name=user.display_name) for user in users}
    return {
        user_id: known.get(user_id, Person(user_id=user_id, username=None, display_name=None)) for user_id in wanted
    }


def _cannot_decide(approval: Approval, viewer: Principal) -> tuple[CannotDecide | None, str | None]:
    if approval.status.is_final:
        return "not_pending", f"This request is already {approval.status.value}: {approval.resolution or 'closed'}."
    try:
        check_eligible(approval, viewer)
    except RequesterCannotApproveError:
        return "own_request", "You asked for this approval, so another approver must decide it (maker-checker)."
    except ApproverNotEligibleError as exc:
        return "not_eligible", exc.message
    if any(decision.approver_user_id == viewer.user_id for decision in approval.decisions):
        needed = approval.required_approvals - approval.approvals
        return "already_decided", f"You already decided; each approver counts once ({needed} more approval(s) needed)."
    if utcnow() >= approval.expires_at:
        return "expired", "The deadline has passed: the request counts as rejected and the run must ask again."
    return None, None


async def _evidence_link(
    session: AsyncSession, state: ApiState, approval: Approval, viewer: str
) -> EvidenceLink | None:
    if approval.evidence is not None:
        return await _request_evidence(session, state, approval, approval.evidence, viewer)
    return await _run_evidence(session, state, approval, viewer)


async def _request_evidence(
    session: AsyncSession, state: ApiState, approval: Approval, shot: Evidence, viewer: str
) -> EvidenceLink:
    ttl = state.audit.link_ttl_s
    url = await state.audit.objects.presign_get(shot.key, bucket=shot.bucket, expires_s=ttl)
    details = {"bucket": shot.bucket, "key": shot.key, "sha256": shot.sha256, "expires_s": ttl, "for": "approval"}
    entry = AuditEntry(
        org_id=approval.org_id,
        action_type=EventType.LINK_ISSUED.value,
        executor=f"human:{viewer}",
        user_id=viewer,
        task_id=approval.run_id,
        dept_id=approval.dept_id,
        bl_id=approval.bl_id,
        approval_id=approval.id,
        details=details,
    )
    await state.audit.append(session, entry)
    return EvidenceLink(source="request", sha256=shot.sha256, url=url, expires_at=_expiry(ttl))


async def _run_evidence(session: AsyncSession, state: ApiState, approval: Approval, viewer: str) -> EvidenceLink | None:
    """The run's newest screenshot taken before the request: the page the proposed action is about."""
    query = AuditQuery(task_id=approval.run_id, until=approval.created_at, limit=50)
    page = await state.audit.search(session, approval.org_id, query)
    for record in page.items:
        if record.has_screenshot_after or record.has_screenshot_before:
            phase: Literal["before", "after"] = "after" if record.has_screenshot_after else "before"
            link = await state.audit.issue_screenshot_link(
                session, approval.org_id, record.seq, phase, issued_to=viewer
            )
            sha256 = record.screenshot_after_sha256 if phase == "after" else record.screenshot_before_sha256
            return EvidenceLink(source="run", sha256=sha256, url=link.url, expires_at=link.expires_at)
    return None


def _expiry(ttl_s: int) -> datetime:
    return utcnow() + timedelta(seconds=ttl_s)
