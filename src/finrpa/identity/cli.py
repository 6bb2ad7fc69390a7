"""``finrpa org|dept|line|user …``: manage organisations, departments, business lines, users and roles.

Commands act as the platform (``Principal.platform``) in an explicit, logged system context bound to the
organisation named by ``--org`` (slug or id), and connect under the application role like the server.
Passwords and API keys are shown once, when created, and never stored in the clear.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import typer

from finrpa.exceptions import FinRPAError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from finrpa.config import Settings
    from finrpa.identity.models import Organization
    from finrpa.identity.permissions import Principal

T = TypeVar("T")

org_app = typer.Typer(help="Organisations (tenants).", no_args_is_help=True)
dept_app = typer.Typer(help="Departments of an organisation.", no_args_is_help=True)
line_app = typer.Typer(help="Business lines of an organisation.", no_args_is_help=True)
user_app = typer.Typer(help="Users, their department roles, grants and API keys.", no_args_is_help=True)

ORG_OPTION = typer.Option(..., "--org", help="Organisation slug (or id).")
DEPT_OPTION = typer.Option(..., "--dept", help="Department code.")


@dataclass(frozen=True)
class CliScope:
    """What a command works with: a session in the organisation's system context, acting as the platform."""

    session: AsyncSession
    settings: Settings
    org: Organization
    actor: Principal


def run_platform(reason: str, work: Callable[[AsyncSession, Settings], Awaitable[T]]) -> T:
    """Run ``work`` in one transaction in a cross-organisation system context."""
    from finrpa.tenancy import system_context

    async def scoped(session: AsyncSession, settings: Settings) -> T:
        with system_context(f"cli: {reason}"):
            return await work(session, settings)

    return _run(scoped)


def run_in_org(org: str, reason: str, work: Callable[[CliScope], Awaitable[T]]) -> T:
    """Run ``work`` in one transaction in a system context bound to the organisation ``org``."""
    from finrpa.identity.permissions import Principal
    from finrpa.tenancy import system_context

    async def scoped(session: AsyncSession, settings: Settings) -> T:
        with system_context(f"cli: find organisation for {reason}"):
            found = await _find_org(session, org)
        with system_context(f"cli: {reason}", org_id=found.id):
            return await work(CliScope(session, settings, found, Principal.platform(found.id, f"cli {reason}")))

    return _run(scoped)


async def _find_org(session: AsyncSession, org: str) -> Organization:
    from finrpa.exceptions import NotFoundError
    from finrpa.identity.models import Organization
    from finrpa.identity.repository import IdentityRepository

    found = await IdentityRepository(session).organization_by_slug(org) or await session.get(Organization, org)
    if found is None:
        raise NotFoundError(f"No organisation {org!r}; `finrpa org list` shows the existing ones.")
    return found


def _run(work: Callable[[AsyncSession, Settings], Awaitable[T]]) -> T:
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from finrpa.config import get_settings
    from finrpa.tenancy import open_tenant_database

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    async def run() -> T:
        database = open_tenant_database(settings.resolved_database_url)
        try:
            async with database.sessions() as session, session.begin():
                return await work(session, settings)
        except (OperationalError, ProgrammingError) as exc:
            if "no such table" in str(exc) or "does not exist" in str(exc):
                raise FinRPAError("The database has no identity tables yet; run `finrpa migrate` first.") from exc
            raise
        finally:
            await database.dispose()

    return asyncio.run(run())


def read_stdin_value(what: str) -> str:
    value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        raise typer.BadParameter(f"Expected the {what} on standard input, got an empty line.")
    return value


@org_app.command("create")
def org_create(
    name: str = typer.Argument(..., help="Display name, e.g. '招商银行 Shanghai branch'."),
    slug: str = typer.Option(..., "--slug", help="Short unique identifier used by --org and at sign-in."),
) -> None:
    """Create an organisation."""
    from finrpa.identity.permissions import Principal
    from finrpa.identity.service import DirectoryService

    async def work(session: AsyncSession, settings: Settings) -> str:
        directory = DirectoryService(session, settings)
        org = await directory.create_organization(Principal.platform("-", "cli org create"), slug=slug, name=name)
        return org.id

    org_id = run_platform("org create", work)
    typer.echo(f"Created organisation {slug} ({org_id}).")


@org_app.command("list")
def org_list() -> None:
    """List organisations."""
    from finrpa.identity.repository import IdentityRepository

    async def work(session: AsyncSession, _settings: Settings) -> list[tuple[str, str, str]]:
        return [(o.slug, o.id, o.name) for o in await IdentityRepository(session).organizations()]

    for slug, org_id, name in run_platform("org list", work):
        typer.echo(f"{slug}\t{org_id}\t{name}")


@dept_app.command("create")
def dept_create(
    code: str = typer.Argument(..., help="Short code, e.g. ops."),
    org: str = ORG_OPTION,
    name: str = typer.Option(..., "--name", help="Display name, e.g. 运营部."),
) -> None:
    """Create a department."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> str:
        directory = DirectoryService(scope.session, scope.settings)
        return (await directory.create_department(scope.actor, scope.org.id, code=code, name=name)).id

    typer.echo(f"Created department {code} ({run_in_org(org, 'dept create', work)}).")


@dept_app.command("list")
def dept_list(org: str = ORG_OPTION) -> None:
    """List the departments of an organisation."""
    from finrpa.identity.repository import IdentityRepository

    async def work(scope: CliScope) -> list[tuple[str, str, str]]:
        departments = await IdentityRepository(scope.session).departments(scope.org.id)
        return [(d.code, d.id, d.name) for d in departments]

    for code, dept_id, name in run_in_org(org, "dept list", work):
        typer.echo(f"{code}\t{dept_id}\t{name}")


@line_app.command("create")
def line_create(
    code: str = typer.Argument(..., help="Short code, e.g. corporate."),
    org: str = ORG_OPTION,
    name: str = typer.Option(..., "--name", help="Display name, e.g. 对公业务."),
) -> None:
    """Create a business line."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> str:
        directory = DirectoryService(scope.session, scope.settings)
        return (await directory.create_business_line(scope.actor, scope.org.id, code=code, name=name)).id

    typer.echo(f"Created business line {code} ({run_in_org(org, 'line create', work)}).")
