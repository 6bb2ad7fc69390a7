"""``finrpa user …``: create users, grant and revoke department roles, lines, special grants and API keys."""

from __future__ import annotations

from datetime import datetime

import typer

from finrpa.identity.cli import DEPT_OPTION, ORG_OPTION, CliScope, read_stdin_value, run_in_org, user_app
from finrpa.identity.models import GrantKind, Role
from finrpa.identity.permissions import Action

__all__ = ["user_app"]


@user_app.command("create")
def user_create(
    username: str = typer.Argument(...),
    org: str = ORG_OPTION,
    display_name: str = typer.Option("", "--display-name"),
    org_admin: bool = typer.Option(False, "--org-admin", help="Make the user an admin of the organisation."),
    password_stdin: bool = typer.Option(False, "--password-stdin", help="Read the password from standard input."),
    service: bool = typer.Option(False, "--service", help="A service account: API keys only, no password."),
) -> None:
    """Create a user. Without --password-stdin a random password is generated and shown once."""
    from finrpa.identity.models import UserKind
    from finrpa.identity.passwords import generate_password
    from finrpa.identity.service import DirectoryService, NewUser

    generated = not password_stdin and not service
    password = None if service else (read_stdin_value("password") if password_stdin else generate_password())
    kind = UserKind.SERVICE if service else UserKind.HUMAN
    new = NewUser(username=username, display_name=display_name, password=password, org_admin=org_admin, kind=kind)

    async def work(scope: CliScope) -> str:
        return (await DirectoryService(scope.session, scope.settings).create_user(scope.actor, scope.org.id, new)).id

    user_id = run_in_org(org, "user create", work)
    typer.echo(f"Created user {username} ({user_id}).")
    if generated:
        typer.echo(f"Initial password (shown only now; hand it over securely): {password}")


@user_app.command("list")
def user_list(org: str = ORG_OPTION) -> None:
    """List users with their roles per department."""
    from finrpa.identity.repository import IdentityRepository

    async def work(scope: CliScope) -> list[str]:
        repo = IdentityRepository(scope.session)
        codes = {d.id: d.code for d in await repo.departments(scope.org.id)}
        lines = []
        for user in await repo.users(scope.org.id):
            roles = [
                f"{codes.get(m.department_id, m.department_id)}:{'+'.join(sorted(r.value for r in m.roles()))}"
                for m in await repo.memberships(user.id)
            ]
            flags = [flag for flag, on in (("org_admin", user.is_org_admin), ("disabled", not user.is_active)) if on]
            lines.append("\t".join([user.username, user.id, " ".join(flags + roles)]))
        return lines

    for line in run_in_org(org, "user list", work):
        typer.echo(line)


@user_app.command("grant")
def user_grant(
    username: str = typer.Argument(...),
    org: str = ORG_OPTION,
    dept: str = DEPT_OPTION,
    role: Role = typer.Option(..., "--role", help="dept_admin, operator, approver, auditor or viewer."),
) -> None:
    """Give a user a role in a department (operator and approver never on the same department)."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> None:
        directory = DirectoryService(scope.session, scope.settings)
        user = await directory.user_by_username(scope.org.id, username)
        department = await directory.department_by_code(scope.org.id, dept)
        await directory.grant_role(scope.actor, user, department, role)

    run_in_org(org, "user grant", work)
    typer.echo(f"{username} is now {role.value} in {dept}.")


@user_app.command("revoke")
def user_revoke(
    username: str = typer.Argument(...),
    org: str = ORG_OPTION,
    dept: str = DEPT_OPTION,
    role: Role = typer.Option(..., "--role"),
) -> None:
    """Take a department role away from a user."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> None:
        directory = DirectoryService(scope.session, scope.settings)
        user = await directory.user_by_username(scope.org.id, username)
        department = await directory.department_by_code(scope.org.id, dept)
        await directory.revoke_role(scope.actor, user, department, role)

    run_in_org(org, "user revoke", work)
    typer.echo(f"{username} is no longer {role.value} in {dept}.")


@user_app.command("add-line")
def user_add_line(
    username: str = typer.Argument(...), org: str = ORG_OPTION, line: str = typer.Option(..., "--line")
) -> None:
    """Let a user see a business line's resources (read only)."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> None:
        directory = DirectoryService(scope.session, scope.settings)
        user = await directory.user_by_username(scope.org.id, username)
        await directory.add_to_business_line(
            scope.actor, user, await directory.business_line_by_code(scope.org.id, line)
        )

    run_in_org(org, "user add-line", work)
    typer.echo(f"{username} now sees business line {line}.")


@user_app.command("grant-special")
def user_grant_special(
    username: str = typer.Argument(...),
    org: str = ORG_OPTION,
    kind: GrantKind = typer.Option(..., "--kind", help="CROSS_DEPT_READ or CROSS_DEPT_APPROVE."),
    dept: str | None = typer.Option(None, "--dept", help="Limit to one department (default: all)."),
    expires: datetime | None = typer.Option(None, "--expires", help="UTC expiry, e.g. 2026-12-31T18:00:00."),
) -> None:
    """Grant cross-department read or approve rights."""
    from datetime import UTC

    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> None:
        directory = DirectoryService(scope.session, scope.settings)
        user = await directory.user_by_username(scope.org.id, username)
        department = await directory.department_by_code(scope.org.id, dept) if dept else None
        expires_at = expires.replace(tzinfo=UTC) if expires else None
        await directory.grant_special(scope.actor, user, kind, department, expires_at)

    run_in_org(org, "user grant-special", work)
    typer.echo(f"{username} holds {kind.value} for {dept or 'every department'}.")


@user_app.command("unlock")
def user_unlock(username: str = typer.Argument(...), org: str = ORG_OPTION) -> None:
    """Clear a lockout after too many failed sign-ins."""
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> None:
        user = await DirectoryService(scope.session, scope.settings).user_by_username(scope.org.id, username)
        user.locked_until, user.failed_login_count = None, 0

    run_in_org(org, "user unlock", work)
    typer.echo(f"{username} can sign in again.")


@user_app.command("api-key")
def user_api_key(
    username: str = typer.Argument(..., help="The (service) user the key acts as."),
    org: str = ORG_OPTION,
    name: str = typer.Option(..., "--name", help="What the key is for."),
    scope_names: list[Action] = typer.Option(..., "--scope", help="Allowed action; repeat for several."),
) -> None:
    """Create an API key; it is shown once."""
    from finrpa.identity.api_keys import ApiKeyService
    from finrpa.identity.service import DirectoryService

    async def work(scope: CliScope) -> str:
        user = await DirectoryService(scope.session, scope.settings).user_by_username(scope.org.id, username)
        issued = await ApiKeyService(scope.session, scope.settings).create(
            scope.actor, user, name=name, scopes=scope_names
        )
        return issued.key

    key = run_in_org(org, "user api-key", work)
    typer.echo(f"API key (shown only now; store it in the caller's secret store): {key}")


@user_app.command("revoke-key")
def user_revoke_key(
    prefix: str = typer.Argument(..., help="The key's prefix, e.g. fk_0a1b2c3d4e5f."), org: str = ORG_OPTION
) -> None:
    """Revoke an API key at once."""
    from finrpa.identity.api_keys import ApiKeyService

    async def work(scope: CliScope) -> None:
        await ApiKeyService(scope.session, scope.settings).revoke(scope.actor, prefix[:15])

    run_in_org(org, "user revoke-key", work)
    typer.echo(f"Revoked {prefix[:15]}.")
