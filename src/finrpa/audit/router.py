"""HTTP routes of the audit trail: search, one row, integrity check, evidence export, screenshot links.

Searching, verifying and exporting need the ``audit`` right (auditors, org admins); rows are masked with the
viewer's profile (auditors and admins see the auditor profile, others the strict one). A screenshot link
needs ``read`` on the row's department — an operator sees the evidence of the runs they can see — and
every link issued is itself an audit row. Rows of departments the caller cannot see do not exist for them.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, BackgroundTasks, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.export import export_evidence
from finrpa.audit.masking import MaskingProfile, profile_for_roles
from finrpa.audit.models import AuditRecord
from finrpa.audit.repository import RecordFilter
from finrpa.audit.schemas import AuditPage, AuditQuery, AuditRecordView, IssuedLink
from finrpa.exceptions import NotFoundError, PermissionDeniedError
from finrpa.http.caller import CurrentUser, DbSession, State, allowed, require
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.auth import Authenticated
from finrpa.identity.models import Role
from finrpa.identity.permissions import Action, Principal, Resource

router = APIRouter(prefix="/audit", tags=["audit"], responses=PROBLEM_RESPONSES)

ZIP_MEDIA_TYPE = "application/zip"


class CheckpointView(BaseModel):
    tree_size: int
    root_hash: str
    issued_at: str
    key_id: str


class VerifyReport(BaseModel):
    ok: bool
    org_id: str
    rows: int
    root_hash: str
    last_row_hash: str
    checkpoint: CheckpointView | None
    checkpoints_checked: int
    unanchored_rows: int = Field(description="Rows after the last signed checkpoint.")
    problem: str | None = Field(None, description="What verification found wrong, if anything.")
    summary: str


class ExportRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str | None = Field(None, max_length=64)
    user_id: str | None = Field(None, max_length=64)
    dept_id: str | None = Field(None, max_length=32)
    action_types: list[str] | None = Field(None, max_length=50)
    since: datetime | None = None
    until: datetime | None = None


class LinkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Literal["before", "after"]


@router.get("/records", summary="Search audit rows, newest first")
async def search_records(
    caller: CurrentUser,
    session: DbSession,
    state: State,
    task_id: Annotated[str | None, Query(max_length=64)] = None,
    user_id: Annotated[str | None, Query(max_length=64)] = None,
    dept_id: Annotated[str | None, Query(max_length=32)] = None,
    action_type: Annotated[list[str] | None, Query(max_length=50, description="Repeat for several.")] = None,
    since: Annotated[datetime | None, Query(description="Inclusive, ISO 8601.")] = None,
    until: Annotated[datetime | None, Query(description="Exclusive, ISO 8601.")] = None,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> AuditPage:
    _require_audit(caller, dept_id)
    query = AuditQuery(
        task_id=task_id,
        user_id=user_id,
        dept_id=dept_id,
        action_types=action_type,
        since=since,
        until=until,
        cursor=cursor,
        limit=limit,
    )
    page = await state.audit.search(session, caller.principal.org_id, query, profile=_profile(caller.principal))
    page.items = [item for item in page.items if _may_audit(caller, item.dept_id)]
    return page


@router.get("/records/{record_id}", summary="One audit row")
async def get_record(record_id: str, caller: CurrentUser, session: DbSession, state: State) -> AuditRecordView:
    record = await _visible_record(session, record_id)
    if not _may_audit(caller, record.dept_id):
        raise PermissionDeniedError("Reading audit rows needs the auditor role in the row's department.")
    return await state.audit.get(session, record.org_id, record.seq, profile=_profile(caller.principal))


@router.post("/records/{record_id}/links", summary="An expiring link to a row's screenshot (the link is audited)")
async def screenshot_link(
    record_id: str, body: LinkRequest, caller: CurrentUser, session: DbSession, state: State
) -> IssuedLink:
    record = await _visible_record(session, record_id)
    resource = Resource(record.org_id, record.dept_id, record.bl_id, kind="audit row", id=record.id)
    require(caller, Action.READ, resource)
    return await state.audit.issue_screenshot_link(
        session, record.org_id, record.seq, body.phase, issued_to=caller.principal.user_id
    )


@router.get("/verify", summary="Verify the organisation's hash chain, Merkle tree and signed checkpoints")
async def verify(caller: CurrentUser, session: DbSession, state: State) -> VerifyReport:
    _require_audit(caller, None)
    report = await state.audit.verify(session, caller.principal.org_id)
    checkpoint = report.checkpoint
    return VerifyReport(
        ok=report.ok,
        org_id=report.org_id,
        rows=report.rows,
        root_hash=report.root_hash,
        last_row_hash=report.last_row_hash,
        checkpoint=CheckpointView(
            tree_size=checkpoint.tree_size,
            root_hash=checkpoint.root_hash,
            issued_at=checkpoint.issued_at,
            key_id=checkpoint.key_id,
        )
        if checkpoint
        else None,
        checkpoints_checked=report.checkpoints_checked,
        unanchored_rows=report.unanchored_rows,
        problem=report.problem.message if report.problem else None,
        summary=report.summary(),
    )


@router.post(
    "/exports",
    summary="Export matching rows with screenshots, proofs and a signed checkpoint as a zip",
    response_class=FileResponse,
    responses={200: {"description": "The evidence zip (verify offline with `finrpa audit verify-export`).",
                     "content": {ZIP_MEDIA_TYPE: {}}}},
)
async def export(
    body: ExportRequest, caller: CurrentUser, session: DbSession, state: State, background: BackgroundTasks
) -> FileResponse:
    if not _may_audit(caller, body.dept_id):
        raise PermissionDeniedError(
            "Exporting evidence needs the auditor role in the department exported (set dept_id), or org admin."
        )
    criteria = RecordFilter(
        task_id=body.task_id,
        user_id=body.user_id,
        dept_id=body.dept_id,
        action_types=tuple(body.action_types) if body.action_types else None,
        since=body.since,
        until=body.until,
    )
    folder = Path(tempfile.mkdtemp(prefix="finrpa-export-", dir=_export_dir(state.settings.data_dir)))
    destination = folder / "evidence.zip"
    summary = await export_evidence(
        state.audit, session, caller.principal.org_id, criteria, destination, exported_by=caller.principal.user_id
    )
    background.add_task(_remove, folder)
    name = f"finrpa-evidence-{summary.org_id[:8]}-{summary.manifest_sha256[:12]}.zip"
    return FileResponse(destination, media_type=ZIP_MEDIA_TYPE, filename=name)


# -- helpers ----------------------------------------------------------------------------------------------


async def _visible_record(session: AsyncSession, record_id: str) -> AuditRecord:
    record = await session.scalar(select(AuditRecord).where(AuditRecord.id == record_id).limit(1))
    if record is None:
        raise NotFoundError("No such audit row in your organisation.")
    return record


def _may_audit(caller: Authenticated, dept_id: str | None) -> bool:
    return allowed(caller, Action.AUDIT, Resource(caller.principal.org_id, dept_id, kind="audit trail"))


def _require_audit(caller: Authenticated, dept_id: str | None) -> None:
    """``audit`` on the department asked for; without one, the auditor role somewhere (rows are then filtered)."""
    principal = caller.principal
    if dept_id is not None or principal.is_org_admin or principal.is_super_admin:
        require(caller, Action.AUDIT, Resource(principal.org_id, dept_id, kind="audit trail"))
        return
    if not any(_may_audit(caller, department) for department in principal.department_roles):
        raise PermissionDeniedError(
            "Searching, verifying and exporting the audit trail needs the auditor role; ask an administrator."
        )


def _profile(principal: Principal) -> MaskingProfile:
    roles = {role.value for roles in principal.department_roles.values() for role in roles if role is Role.AUDITOR}
    if principal.is_org_admin:
        roles.add("org_admin")
    if principal.is_super_admin:
        roles.add("super_admin")
    return profile_for_roles(roles)


def _export_dir(data_dir: Path) -> Path:
    folder = data_dir / "exports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink(missing_ok=True)
    folder.rmdir()
