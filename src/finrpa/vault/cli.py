"""``finrpa secret …``: put, list and delete credentials, and re-wrap data keys after a master-key change.

Values go in through standard input or a hidden prompt, never as a command-line argument (which would
land in shell history and ``ps``); no command ever prints a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from finrpa.identity.cli import ORG_OPTION, CliScope, read_stdin_value, run_in_org, run_platform
from finrpa.vault.models import SecretKind

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from finrpa.config import Settings

secret_app = typer.Typer(
    help="Credential vault: write-only secrets referenced as secret://<name>.", no_args_is_help=True
)


@secret_app.command("put")
def secret_put(
    name: str = typer.Argument(..., help="Name, e.g. bank-portal/login; referenced as secret://<name>."),
    org: str = ORG_OPTION,
    dept: str | None = typer.Option(None, "--dept", help="Department whose operators may use it (code)."),
    kind: SecretKind = typer.Option(SecretKind.PASSWORD, "--kind"),
    description: str = typer.Option("", "--description"),
    value_stdin: bool = typer.Option(False, "--value-stdin", help="Read the value from standard input."),
) -> None:
    """Store or replace a secret (prompts for the value, hidden, unless --value-stdin)."""
    from finrpa.identity.service import DirectoryService
    from finrpa.vault.service import VaultService

    value = (
        read_stdin_value("secret value")
        if value_stdin
        else typer.prompt("Value", hide_input=True, confirmation_prompt=True)
    )

    async def work(scope: CliScope) -> int:
        dept_id = (
            (await DirectoryService(scope.session, scope.settings).department_by_code(scope.org.id, dept)).id
            if dept
            else None
        )
        info = await VaultService(scope.session, scope.settings).put_secret(
            scope.actor, scope.org.id, name, value, kind=kind, dept_id=dept_id, description=description
        )
        return info.version

    version = run_in_org(org, "secret put", work)
    typer.echo(f"Stored secret://{name} (version {version}).")


@secret_app.command("list")
def secret_list(org: str = ORG_OPTION) -> None:
    """List secret names and metadata (never values)."""
    from finrpa.vault.service import SecretInfo, VaultService

    async def work(scope: CliScope) -> list[SecretInfo]:
        return await VaultService(scope.session, scope.settings).list_secrets(scope.actor, scope.org.id)

    for info in run_in_org(org, "secret list", work):
        updated = f"{info.updated_at:%Y-%m-%d %H:%M}"
        typer.echo(f"secret://{info.name}\t{info.kind.value}\tv{info.version}\t{updated}\t{info.description}")


@secret_app.command("delete")
def secret_delete(name: str = typer.Argument(...), org: str = ORG_OPTION) -> None:
    """Delete a secret (its read log stays)."""
    from finrpa.vault.service import VaultService

    async def work(scope: CliScope) -> None:
        await VaultService(scope.session, scope.settings).delete_secret(scope.actor, scope.org.id, name)

    run_in_org(org, "secret delete", work)
    typer.echo(f"Deleted secret://{name.removeprefix('secret://')}.")


@secret_app.command("rewrap")
def secret_rewrap(
    old_key_stdin: bool = typer.Option(False, "--old-key-stdin", help="Read the previous master key from stdin."),
) -> None:
    """After setting a new FINRPA_MASTER_KEY, re-wrap every organisation's data key (secrets stay as they are)."""
    from finrpa.vault.service import rewrap_data_keys

    if not old_key_stdin:
        raise typer.BadParameter("Pipe the previous master key in and pass --old-key-stdin.")
    old_key = read_stdin_value("previous master key").encode()

    async def work(session: AsyncSession, settings: Settings) -> int:
        return await rewrap_data_keys(session, old_master_key=old_key, new_master_key=settings.key("master_key"))

    count = run_platform("secret rewrap", work)
    typer.echo(f"Re-wrapped {count} organisation data key(s) with the current master key.")
