"""``finrpa audit …``: verify the trail, sign checkpoints, search, export and check evidence, check values.

The commands act in an explicit, logged system context (one organisation with ``--org``, all of them for
``verify`` without it) and connect under the application role like the server does. Heavy imports happen
inside the commands so that ``finrpa --help`` stays fast.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from finrpa.audit.service import AuditService

T = TypeVar("T")

audit_app = typer.Typer(
    help="Audit trail: verify its integrity, search it, export and check evidence.", no_args_is_help=True
)

_ORG = typer.Option(..., "--org", help="Organisation id.")
_BY = typer.Option(None, "--by", help="Who is acting (user id); default: cli:<login name>.")


def _actor(by: str | None) -> str:
    return by or f"cli:{getpass.getuser()}"


def _in_org(org_id: str | None, reason: str, work: Callable[[AuditService, AsyncSession], Awaitable[T]]) -> T:
    """Run ``work`` in one transaction, in a system context bound to ``org_id`` (all orgs when None)."""
    from finrpa.audit.service import AuditService
    from finrpa.config import get_settings
    from finrpa.tenancy import open_tenant_database, system_context

    settings = get_settings()
    service = AuditService.from_settings(settings)

    async def run() -> T:
        database = open_tenant_database(settings.resolved_database_url)
        try:
            with system_context(reason, org_id=org_id):
                async with database.sessions() as session, session.begin():
                    return await work(service, session)
        finally:
            await database.dispose()

    return asyncio.run(run())


@audit_app.command("verify")
def verify(
    org: str | None = typer.Option(None, "--org", help="Only this organisation (default: every one)."),
    checkpoint: bool = typer.Option(False, "--checkpoint", help="Sign a new checkpoint after a clean check."),
    incremental: bool = typer.Option(
        False,
        "--incremental",
        help="Check only the rows after the newest signed checkpoint and extend its tree (default: every row, "
        "which also catches changes to rows a checkpoint already covers).",
    ),
) -> None:
    """Recompute hash chains and Merkle trees and compare them with the signed checkpoints.

    By default every row of every chain is re-checked (a full verify); --incremental trusts the newest
    signature-checked checkpoint for the rows it covers."""

    async def work(service: AuditService, session: AsyncSession) -> bool:
        reports = (
            [await service.verify(session, org, incremental=incremental)]
            if org
            else await service.verify_all(session, incremental=incremental)
        )
        if not reports:
            typer.echo("No audit trail yet.")
        for report in reports:
            typer.echo(report.summary())
            if checkpoint and report.ok and report.rows:
                signed = await service.checkpoint_from(report)
                if signed is not None:
                    typer.echo(f"  signed checkpoint of {signed.checkpoint.tree_size} rows")
        return all(report.ok for report in reports)

    if not _in_org(org, "finrpa audit verify", work):
        raise typer.Exit(1)


@audit_app.command("checkpoint")
def checkpoint(org: str | None = typer.Option(None, "--org", help="Only this organisation.")) -> None:
    """Verify, then sign and store a checkpoint of each organisation's current tree."""

    async def work(service: AuditService, session: AsyncSession) -> None:
        reports = [await service.verify(session, org)] if org else await service.verify_all(session)
        for report in reports:
            signed = await service.checkpoint_from(report)
            if signed is not None:
                typer.echo(f"org {report.org_id}: checkpoint of {signed.checkpoint.tree_size} rows signed")

    _in_org(org, "finrpa audit checkpoint", work)


@audit_app.command("search")
def search(
    org: str = _ORG,
    task: str | None = typer.Option(None, "--task"),
    user: str | None = typer.Option(None, "--user"),
    dept: str | None = typer.Option(None, "--dept"),
    action_type: list[str] | None = typer.Option(None, "--type", help="Action or event type; repeatable."),
    since: datetime | None = typer.Option(None, "--since", help="ISO time, inclusive (UTC if no zone)."),
    until: datetime | None = typer.Option(None, "--until", help="ISO time, exclusive."),
    limit: int = typer.Option(50, "--limit", min=1, max=500),
    cursor: str | None = typer.Option(None, "--cursor", help="next_cursor of the previous page."),
    profile: str = typer.Option("strict", "--profile", help="Masking: strict (default) or auditor."),
) -> None:
    """Search an organisation's audit rows (newest first) and print them as JSON lines."""
    from finrpa.audit.masking import PROFILES
    from finrpa.audit.schemas import AuditQuery

    query = AuditQuery(
        task_id=task,
        user_id=user,
        dept_id=dept,
        action_types=action_type or None,
        since=since,
        until=until,
        cursor=cursor,
        limit=limit,
    )
    if profile not in PROFILES:
        raise typer.BadParameter(f"choose one of {', '.join(PROFILES)}", param_hint="--profile")

    async def work(service: AuditService, session: AsyncSession) -> None:
        page = await service.search(session, org, query, profile=PROFILES[profile])
        for item in page.items:
            typer.echo(item.model_dump_json())
        if page.next_cursor:
            typer.echo(f"# more: --cursor {page.next_cursor}", err=True)

    _in_org(org, "finrpa audit search", work)


@audit_app.command("export")
def export(
    org: str = _ORG,
    out: Path = typer.Option(..., "--out", help="Where to write the evidence zip."),
    task: str | None = typer.Option(None, "--task"),
    user: str | None = typer.Option(None, "--user"),
    dept: str | None = typer.Option(None, "--dept"),
    action_type: list[str] | None = typer.Option(None, "--type", help="Action or event type; repeatable."),
    since: datetime | None = typer.Option(None, "--since"),
    until: datetime | None = typer.Option(None, "--until"),
    by: str | None = _BY,
) -> None:
    """Export matching rows, their screenshots, a signed checkpoint and inclusion proofs as a zip."""
    from finrpa.audit.export import export_evidence
    from finrpa.audit.repository import RecordFilter

    criteria = RecordFilter(
        task_id=task,
        user_id=user,
        dept_id=dept,
        action_types=tuple(action_type) if action_type else None,
        since=since,
        until=until,
    )

    async def work(service: AuditService, session: AsyncSession) -> None:
        summary = await export_evidence(service, session, org, criteria, out, exported_by=_actor(by))
        typer.echo(
            f"Wrote {summary.path}: {summary.rows} rows, {summary.screenshots} screenshots, tree of "
            f"{summary.tree_size} rows, manifest sha256 {summary.manifest_sha256}"
        )
        for problem in summary.problems:
            typer.echo(f"  warning: {problem}", err=True)

    _in_org(org, "finrpa audit export", work)


@audit_app.command("verify-export")
def verify_export_command(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="The evidence zip."),
    public_key: list[Path] | None = typer.Option(
        None,
        "--public-key",
        exists=True,
        dir_okay=False,
        help="An audit public key your institution published; repeat it for the keys of earlier rotations.",
    ),
) -> None:
    """Check an evidence export offline: no database, no secrets."""
    from finrpa.audit.offline import verify_export

    result = verify_export(file, [path.read_bytes() for path in public_key] if public_key else None)
    for fact in result.facts:
        typer.echo(f"ok: {fact}")
    for problem in result.problems:
        typer.echo(f"PROBLEM: {problem}")
    typer.echo("VERIFIED" if result.ok else "NOT VERIFIED")
    if not result.ok:
        raise typer.Exit(1)


@audit_app.command("check-value")
def check_value(
    org: str = _ORG,
    seq: int = typer.Option(..., "--seq", help="The audit row whose raw-value hash to check."),
    stdin: bool = typer.Option(False, "--stdin", help="Read the candidate value from standard input."),
    by: str | None = _BY,
) -> None:
    """Check whether a candidate value is the one behind a row's keyed hash (the check is audited)."""
    candidate = sys.stdin.readline().rstrip("\n") if stdin else typer.prompt("Candidate value", hide_input=True)

    async def work(service: AuditService, session: AsyncSession) -> bool:
        return await service.check_value(session, org, seq, candidate, checked_by=_actor(by))

    matches = _in_org(org, "finrpa audit check-value", work)
    typer.echo("MATCH" if matches else "NO MATCH")
    if not matches:
        raise typer.Exit(1)


@audit_app.command("public-key")
def public_key() -> None:
    """Print the audit public keys auditors should pin (PEM), with their key ids and status."""

    async def work(service: AuditService) -> None:
        ring = await service.keyring()
        for entry in ring.keys:
            typer.echo(entry.public_pem.rstrip())
            typer.echo(json.dumps({"key_id": entry.key_id, "status": entry.status}))

    _with_service(work)


@audit_app.command("rotate-key")
def rotate_key() -> None:
    """Make a fresh Ed25519 key sign checkpoints from now on; earlier keys keep verifying what they signed."""

    async def work(service: AuditService) -> None:
        entry = await service.rotate_key()
        typer.echo(f"active audit key is now {entry.key_id}; publish its public key to your auditors:")
        typer.echo(entry.public_pem.rstrip())

    _with_service(work)


@audit_app.command("revoke-key")
def revoke_key(key_id: str = typer.Argument(..., help="The key id to stop trusting (not the active key).")) -> None:
    """Stop trusting a retired key (e.g. after it leaked); re-sign with `finrpa audit checkpoint` afterwards."""

    async def work(service: AuditService) -> None:
        ring = await service.revoke_key(key_id)
        typer.echo(f"key {key_id} revoked; active key {ring.active.key_id}. Run `finrpa audit checkpoint` now.")

    _with_service(work)


def _with_service(work: Callable[[AuditService], Coroutine[Any, Any, None]]) -> None:
    """Run ``work`` with the configured service; keys live next to the checkpoints, no database needed."""
    from finrpa.audit.service import AuditService
    from finrpa.config import get_settings

    asyncio.run(work(AuditService.from_settings(get_settings())))
