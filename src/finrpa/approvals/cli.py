"""``finrpa approvals …``: list queues, show a request, decide it as a user, expire overdue ones, and show
the NEEDS_HUMAN panel of a run (``takeover``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.approvals.service import ApprovalService, approvals_transaction
from finrpa.approvals.takeover import TakeoverView, human_takeover_view
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app, resolve_org
from finrpa.bus.factory import build_bus
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import PermissionDeniedError, ValidationFailedError
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService
from finrpa.tenancy.context import system_context, use_tenant

approvals_app = typer.Typer(
    help="Approvals of risky steps (maker-checker, dual control) and runs waiting for a person.",
    no_args_is_help=True,
)

T = TypeVar("T")
_ORG = typer.Option(None, "--org", help="Organisation slug (default: the only one).")
_JSON = typer.Option(False, "--json", help="Print JSON.")


def _with_app(org: str | None, work: Callable[[App, str], Awaitable[T]]) -> T:
    async def run() -> T:
        async with open_app() as app:
            organization = await resolve_org(app, org)
            return await work(app, organization.id)

    return asyncio.run(run())


async def _principal(app: App, org_id: str, username: str) -> Principal:
    with system_context(f"load approver {username}", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            directory = DirectoryService(session, app.settings)
            user = await directory.user_by_username(org_id, username)
            if not user.is_active:
                raise PermissionDeniedError(f"User {username!r} is deactivated and cannot act on approvals.")
            return await directory.load_principal(user)


def _service(app: App, session: AsyncSession) -> ApprovalService:
    return ApprovalService(session, app.settings, audit=AuditService.from_settings(app.settings))


@approvals_app.command("list")
def list_approvals(
    org: str | None = _ORG,
    user: str | None = typer.Option(None, "--user", help="Only what this user may decide now (their queue)."),
    status: str | None = typer.Option(None, "--status", help="PENDING, APPROVED, REJECTED, TIMEOUT, CANCELLED."),
    limit: int = typer.Option(50, "--limit", min=1, max=500),
    as_json: bool = _JSON,
) -> None:
    """List approval requests, newest first, or one approver's queue with --user."""
    wanted = _status(status)

    async def work(app: App, org_id: str) -> list[Approval]:
        if user is not None:
            principal = await _principal(app, org_id, user)
            with use_tenant(principal.tenant_context()):
                async with unit_of_work(app.database.sessions) as session:
                    return await _service(app, session).pending_for(principal, limit=limit)
        with system_context("list approvals from the CLI", org_id=org_id):
            async with unit_of_work(app.database.sessions) as session:
                return await _service(app, session).recent(status=wanted, limit=limit)

    approvals = _with_app(org, work)
    if as_json:
        typer.echo(json.dumps([a.model_dump(mode="json") for a in approvals], ensure_ascii=False, indent=2))
        return
    if not approvals:
        typer.echo("No approval requests." if user is None else f"Nothing is waiting for {user}.")
    for approval in approvals:
        typer.echo(_line(approval))


@approvals_app.command("show")
def show(approval_id: str, org: str | None = _ORG, as_json: bool = _JSON) -> None:
    """Show one request: the sanitized action, risk, evidence, deadline and every decision."""

    async def work(app: App, org_id: str) -> Approval:
        with system_context("show an approval from the CLI", org_id=org_id):
            async with unit_of_work(app.database.sessions) as session:
                return await _service(app, session).get(approval_id)

    approval = _with_app(org, work)
    if as_json:
        typer.echo(approval.model_dump_json(indent=2))
        return
    _print_detail(approval)


@approvals_app.command("decide")
def decide(
    approval_id: str,
    approve: bool | None = typer.Option(None, "--approve/--reject", help="Approve or reject (one is required)."),
    user: str = typer.Option(..., "--user", help="The approver's username; the decision is theirs and audited."),
    comment: str = typer.Option("", "--comment"),
    org: str | None = _ORG,
) -> None:
    """Approve or reject a request as USER (maker-checker and eligibility apply)."""
    if approve is None:
        raise ValidationFailedError("Say --approve or --reject.")

    async def work(app: App, org_id: str) -> Approval:
        principal = await _principal(app, org_id, user)
        audit = AuditService.from_settings(app.settings)
        bus = build_bus(app.settings)
        try:
            with use_tenant(principal.tenant_context()):
                async with approvals_transaction(app.database.sessions, app.settings, audit=audit, bus=bus) as service:
                    return await service.decide(approval_id, principal, approve, comment)
        finally:
            await bus.close()

    approval = _with_app(org, work)
    progress = f"{approval.approvals}/{approval.required_approvals} approvals"
    typer.echo(f"approval {approval.id}: {approval.status.value} ({progress})")


@approvals_app.command("expire")
def expire(org: str | None = _ORG) -> None:
    """Mark TIMEOUT every pending request whose deadline has passed (and notify)."""

    async def work(app: App, org_id: str) -> list[Approval]:
        bus = build_bus(app.settings)
        audit = AuditService.from_settings(app.settings)
        try:
            with system_context("expire overdue approvals", org_id=org_id):
                async with approvals_transaction(app.database.sessions, app.settings, audit=audit, bus=bus) as service:
                    return await service.expire_due()
        finally:
            await bus.close()

    expired = _with_app(org, work)
    typer.echo(f"{len(expired)} approval request(s) timed out.")
    for approval in expired:
        typer.echo(_line(approval))


@approvals_app.command("takeover")
def takeover(
    run_id: str,
    user: str = typer.Option(..., "--user", help="Who looks (recorded with the screenshot link)."),
    org: str | None = _ORG,
    as_json: bool = _JSON,
) -> None:
    """Show where a run waiting for a person stopped, why, and what can be done."""

    async def work(app: App, org_id: str) -> TakeoverView:
        audit = AuditService.from_settings(app.settings)
        with system_context(f"NEEDS_HUMAN panel for {user}", org_id=org_id):
            async with unit_of_work(app.database.sessions) as session:
                return await human_takeover_view(session, run_id, audit=audit, viewer=user)

    view = _with_app(org, work)
    if as_json:
        typer.echo(view.model_dump_json(indent=2))
        return
    _print_takeover(view)


def _status(value: str | None) -> ApprovalStatus | None:
    if value is None:
        return None
    try:
        return ApprovalStatus(value.upper())
    except ValueError as exc:
        choices = ", ".join(status.value for status in ApprovalStatus)
        raise ValidationFailedError(f"Unknown status {value!r}; choose one of {choices}.") from exc


def _line(approval: Approval) -> str:
    progress = f"{approval.approvals}/{approval.required_approvals}"
    return (
        f"{approval.id}  {approval.status.value:<9} {approval.risk.level.value:<8} {progress}  "
        f"until {approval.expires_at:%Y-%m-%d %H:%M}Z  run {approval.run_id}  {approval.action_summary}"
    )


def _print_detail(approval: Approval) -> None:
    typer.echo(f"approval   {approval.id}  {approval.status.value}  ({approval.resolution or 'waiting'})")
    typer.echo(f"run        {approval.run_id}  subtask {approval.subtask_id}")
    typer.echo(f"risk       {approval.risk.level.value}: {'; '.join(approval.risk.reasons) or '-'}")
    typer.echo(f"requested  by {approval.requested_by or 'the platform'} at {approval.created_at:%Y-%m-%d %H:%M:%S}Z")
    typer.echo(f"deadline   {approval.expires_at:%Y-%m-%d %H:%M:%S}Z")
    typer.echo(f"approvals  {approval.approvals} of {approval.required_approvals} distinct approvers")
    typer.echo(f"payload    sha256 {approval.payload_hash}")
    if approval.evidence is not None:
        typer.echo(f"evidence   {approval.evidence.bucket}/{approval.evidence.key} sha256 {approval.evidence.sha256}")
    typer.echo("action     " + json.dumps(approval.action, ensure_ascii=False, sort_keys=True))
    for decision in approval.decisions:
        note = f"  “{decision.comment}”" if decision.comment else ""
        at = f"{decision.decided_at:%Y-%m-%d %H:%M:%S}Z"
        typer.echo(f"decision   {decision.verdict.value:<7} by {decision.approver_user_id} at {at}{note}")


def _print_takeover(view: TakeoverView) -> None:
    typer.echo(
        f"run {view.run_id} ({view.template_id or 'goal'}) waits for a person since {view.waiting_since:%H:%M:%S}Z"
    )
    typer.echo(f"  step     {view.step or view.subtask_id}: {view.goal} (attempts: {view.attempts})")
    typer.echo(f"  reason   {view.reason or '-'}")
    typer.echo(f"  url      {view.url or '-'}")
    if view.last_screenshot is not None:
        typer.echo(f"  screen   {view.last_screenshot.url}")
    for error in view.errors:
        typer.echo(f"  error    {error}")
    if view.llm_raw_output:
        typer.echo("  LLM said " + view.llm_raw_output.replace("\n", "\n           "))
    choices = "|".join(view.choices)
    typer.echo(f"  decide:  finrpa tasks resolve {view.run_id} --action {choices} --user <you>")
