"""The `finrpa` command. Each domain contributes its commands here; errors become one clear line."""

from __future__ import annotations

import asyncio
import sys

import typer

import finrpa
from finrpa.config import get_settings
from finrpa.exceptions import FinRPAError

app = typer.Typer(
    name="finrpa",
    help="FinRPA: AI browser automation for financial institutions.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.command()
def version() -> None:
    """Print FinRPA's version."""
    typer.echo(finrpa.__version__)


@app.command()
def migrate(
    downgrade: str | None = typer.Option(
        None, "--downgrade", help="Roll back to this revision instead (use 'base' to remove everything)."
    ),
) -> None:
    """Apply the database migrations (or roll them back with --downgrade)."""
    from finrpa.db import migrate as migrations
    from finrpa.kit.urls import mask_url_password

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    url = settings.resolved_database_url
    if downgrade:
        asyncio.run(migrations.downgrade(url, downgrade))
        typer.echo(f"Rolled back {mask_url_password(url)} to {downgrade}.")
        return
    asyncio.run(migrations.upgrade(url))
    from finrpa.runs.durable import migrate_engine_tables

    asyncio.run(migrate_engine_tables(settings))
    state = asyncio.run(migrations.migration_state(url))
    typer.echo(f"Database {mask_url_password(url)} is at {', '.join(sorted(state.current))}.")


@app.command()
def doctor() -> None:
    """Check Python, the database and its migrations, Chromium, and optional Redis/S3/LLM."""
    from finrpa.doctor import run_doctor

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    checks = run_doctor(settings)
    width = max(len(check.name) for check in checks)
    for check in checks:
        typer.echo(f"{check.status:<7} {check.name:<{width}}  {check.detail}")
    if any(check.blocking for check in checks):
        raise typer.Exit(1)


def _register_policy() -> None:
    from finrpa.policy.commands import policy_app

    app.add_typer(policy_app, name="policy")


_register_policy()


def _register_risk() -> None:
    from finrpa.risk.commands import risk_app

    app.add_typer(risk_app, name="risk")


_register_risk()


def _register_notify() -> None:
    from finrpa.notify.cli import notify_app

    app.add_typer(notify_app, name="notify")


_register_notify()


def _register_sandbox() -> None:
    from finrpa.sandbox.command import sandbox

    app.command(name="sandbox")(sandbox)


_register_sandbox()


def _register_audit() -> None:
    from finrpa.audit.commands import audit_app

    app.add_typer(audit_app, name="audit")


_register_audit()


def _register_runs() -> None:
    from finrpa.commands.demo import demo
    from finrpa.commands.runs import run, skills, tasks_app, templates
    from finrpa.commands.worker import worker

    app.command(name="skills")(skills)
    app.command(name="templates")(templates)
    app.command(name="run")(run)
    app.command(name="demo")(demo)
    app.command(name="worker")(worker)
    app.add_typer(tasks_app, name="tasks")


_register_runs()


def _register_identity() -> None:
    from finrpa.identity.cli import dept_app, line_app, org_app
    from finrpa.identity.user_cli import user_app
    from finrpa.vault.cli import secret_app

    app.add_typer(org_app, name="org")
    app.add_typer(dept_app, name="dept")
    app.add_typer(line_app, name="line")
    app.add_typer(user_app, name="user")
    app.add_typer(secret_app, name="secret")


_register_identity()


def _register_approvals() -> None:
    from finrpa.approvals.cli import approvals_app

    app.add_typer(approvals_app, name="approvals")


_register_approvals()


def _register_serve() -> None:
    from finrpa.commands.serve import serve

    app.command(name="serve")(serve)


_register_serve()


def main() -> None:
    """Entry point: run the CLI, turning FinRPA errors into one line on stderr and exit code 2."""
    try:
        app()
    except FinRPAError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
