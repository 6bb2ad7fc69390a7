"""`finrpa skills`, `finrpa templates`, `finrpa run` and `finrpa tasks …`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import typer

from finrpa.agents.plan import CoordinationState
from finrpa.agents.planner import match_goal_to_template
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app, resolve_org
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import ValidationFailedError
from finrpa.kit.heap import freeze_startup_heap
from finrpa.llm import run_llm_usage
from finrpa.runs.goal_runs import GoalScope, llm_configured
from finrpa.runs.llm_mode import LLM_MODE, RUN_MODES, SKILL_MODE
from finrpa.runs.repository import RunRepository
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.runs.secrets import vault_secrets
from finrpa.runs.service import (
    HUMAN_ACTIONS,
    GoalRunRequest,
    RunRequest,
    create_goal_run,
    create_run,
    load_state,
    resolve_needs_human,
)
from finrpa.skills.registry import skill_catalogue
from finrpa.tenancy.context import system_context
from finrpa.workflows.loader import describe_template, get_template, load_builtin_templates

tasks_app = typer.Typer(help="List runs, show one, and resolve a run waiting for a person.", no_args_is_help=True)


def skills(as_json: bool = typer.Option(False, "--json", help="Print the catalogue as JSON.")) -> None:
    """List the registered skills with their side effects and failure strategies."""
    catalogue = skill_catalogue()
    if as_json:
        typer.echo(json.dumps(catalogue, ensure_ascii=False, indent=2))
        return
    for skill in catalogue:
        line = f"{skill['name']:<22} {skill['side_effect']:<12} {skill['error_strategy']:<6} {skill['description']}"
        typer.echo(line)


def templates(as_json: bool = typer.Option(False, "--json", help="Print the templates as JSON.")) -> None:
    """List the workflow templates with their parameters."""
    described = [describe_template(t) for t in load_builtin_templates().values()]
    if as_json:
        typer.echo(json.dumps(described, ensure_ascii=False, indent=2))
        return
    for template in described:
        params = template["parameters_schema"]
        required = set(params["required"])
        names = ", ".join(f"{n}{'*' if n in required else ''}" for n in params["properties"])
        typer.echo(f"{template['id']:<32} v{template['version']}  {template['name']}  [{names}]")


def _parse_params(pairs: list[str]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValidationFailedError(f"--param {pair!r} is not NAME=VALUE.")
        parsed[name.strip()] = value
    return parsed


def run(
    template_id: str | None = typer.Argument(None, help="Template id, see `finrpa templates` (or use --goal)."),
    goal: str | None = typer.Option(None, "--goal", "-g", help="Describe the job instead of naming a template."),
    param: list[str] = typer.Option([], "--param", "-p", help="NAME=VALUE; sensitive values as secret://NAME."),
    org: str | None = typer.Option(None, "--org", help="Organisation slug (default: the only one)."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    screenshots: bool = typer.Option(True, "--screenshots/--no-screenshots", help="Before/after evidence."),
    mode: str = typer.Option(
        SKILL_MODE, "--mode", help="skills: the template's skills act; llm: the LLM executor drives the portal."
    ),
) -> None:
    """Run a template — or a free-form goal, planned by the LLM — now, in this process, and print the outcome."""
    if (template_id is None) == (goal is None):
        raise ValidationFailedError("Name a template (`finrpa run TEMPLATE`) or describe a goal (--goal), not both.")
    if mode not in RUN_MODES:
        raise ValidationFailedError(f"--mode {mode!r} is not one of {', '.join(RUN_MODES)}.")
    if template_id is not None:
        get_template(template_id)  # an unknown template is an error before anything starts
    elif mode == LLM_MODE:
        raise ValidationFailedError("--mode llm is for templates; a goal (--goal) is always run by the LLM.")
    outcome = asyncio.run(_run(template_id, goal, _parse_params(param), org, screenshots, mode))
    _print_outcome(outcome, as_json)
    if outcome["status"] != "COMPLETED":
        raise typer.Exit(1)


async def _run(
    template_id: str | None,
    goal: str | None,
    arguments: dict[str, Any],
    org: str | None,
    screenshots: bool,
    mode: str = SKILL_MODE,
) -> dict[str, Any]:
    async with open_app() as app:
        organization = await resolve_org(app, org)
        if goal is not None:
            run_id = await start_goal_run(app, organization.id, goal, arguments, created_by="cli")
        else:
            assert template_id is not None
            if mode == LLM_MODE and not llm_configured(app.settings):
                raise ValidationFailedError(
                    "--mode llm needs an LLM: set FINRPA_LLM_PROVIDER, FINRPA_LLM_BASE_URL, FINRPA_LLM_API_KEY and "
                    "FINRPA_LLM_MODEL_STANDARD, or run the template without --mode."
                )
            run_id = await start_run(app, organization.id, template_id, arguments, created_by="cli", mode=mode)
        return await execute_run(app, organization.id, run_id, screenshots=screenshots)


async def start_goal_run(
    app: App,
    org_id: str,
    goal: str,
    arguments: dict[str, Any],
    *,
    created_by: str,
    dept_id: str | None = None,
    scope: GoalScope | None = None,
) -> str:
    """A goal run planned by the LLM when one is configured; without one, the run of the template the goal
    clearly names (or an error that says what to configure)."""
    if not llm_configured(app.settings):
        template = match_goal_to_template(goal, load_builtin_templates())
        return await start_run(app, org_id, template.id, arguments, created_by=created_by, dept_id=dept_id)
    request = GoalRunRequest(goal, arguments, scope or GoalScope.everything(), dept_id=dept_id, created_by=created_by)
    with system_context("start a goal run", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            run = await create_goal_run(session, request)
            return run.id


async def start_run(
    app: App,
    org_id: str,
    template_id: str,
    arguments: dict[str, Any],
    *,
    created_by: str,
    dept_id: str | None = None,
    mode: str = SKILL_MODE,
) -> str:
    """A template run; ``mode="llm"`` runs it in LLM mode (see :mod:`finrpa.runs.llm_mode`)."""
    template = get_template(template_id)
    request = RunRequest(template, arguments, dept_id=dept_id, created_by=created_by, mode=mode)
    with system_context(f"start a {template_id} run", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            run = await create_run(session, request)
            return run.id


async def execute_run(app: App, org_id: str, run_id: str, *, screenshots: bool = True) -> dict[str, Any]:
    options = RunnerOptions(screenshots=screenshots)
    audit = AuditService.from_settings(app.settings)
    secrets = vault_secrets(app.database.sessions, app.settings, audit)
    async with RunRunner(app.settings, app.database, audit=audit, secrets=secrets, options=options) as runner:
        freeze_startup_heap()  # set up: full collections during the run scan only what it creates
        state = await runner.execute(run_id, org_id)
    outcome = summarise(app, run_id, state)
    with system_context(f"LLM usage of run {run_id}", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            usage = await run_llm_usage(session, org_id, run_id)
    if usage.rows:
        outcome["llm_usage"] = usage.as_dict()
    return outcome


def summarise(app: App, run_id: str, state: CoordinationState) -> dict[str, Any]:
    folder = (app.settings.data_dir / "runs" / run_id).resolve()
    artifacts = [
        artifact["path"]
        for subtask in state.plan.subtasks
        for artifact in [*subtask.result_data.get("artifacts", []), *subtask.result_data.get("downloads", [])]
    ]
    return {
        "run_id": run_id,
        "goal": state.plan.navigation_goal if state.plan.template_id is None else None,
        "status": state.status.value,
        "error": state.last_error,
        "steps": [
            {"step": s.inputs.get("step_id"), "status": s.status.value, "error": s.error_message}
            for s in state.plan.subtasks
        ],
        "artifacts": artifacts,
        "folder": str(folder),
    }


def _print_outcome(outcome: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(outcome, ensure_ascii=False, indent=2))
        return
    typer.echo(f"run {outcome['run_id']}: {outcome['status']}")
    if outcome.get("goal"):
        typer.echo(f"  goal: {outcome['goal']}")
    for step in outcome["steps"]:
        typer.echo(f"  {step['status']:<8} {step['step']}" + (f"  ({step['error']})" if step["error"] else ""))
    if outcome["error"]:
        typer.echo(f"  reason: {outcome['error']}")
    for path in outcome["artifacts"]:
        typer.echo(f"  file: {path}")
    usage = outcome.get("llm_usage")
    if usage:
        typer.echo(
            f"  LLM: {usage['llm_calls']} calls, {usage['cache_hits']} cache hits, {usage['tokens']} tokens, "
            f"~${usage['cost_usd']}"
        )


@tasks_app.command("list")
def list_tasks(
    org: str | None = typer.Option(None, "--org"),
    status: str | None = typer.Option(None, "--status", help="e.g. NEEDS_HUMAN, COMPLETED"),
    limit: int = typer.Option(20, "--limit", min=1, max=500),
) -> None:
    """List recent runs of the organisation."""

    async def _list() -> list[Any]:
        async with open_app() as app:
            organization = await resolve_org(app, org)
            with system_context("list runs from the CLI", org_id=organization.id):
                async with unit_of_work(app.database.sessions) as session:
                    return await RunRepository(session).list(status=status, limit=limit)

    for item in asyncio.run(_list()):
        typer.echo(f"{item.id}  {item.status:<12} {item.template_id or '-':<32} {item.created_at:%Y-%m-%d %H:%M}")


@tasks_app.command("show")
def show_task(run_id: str, org: str | None = typer.Option(None, "--org")) -> None:
    """Show a run's steps and, when it waits for a person, why."""

    async def _show() -> dict[str, Any]:
        async with open_app() as app:
            organization = await resolve_org(app, org)
            with system_context("show a run from the CLI", org_id=organization.id):
                async with unit_of_work(app.database.sessions) as session:
                    return summarise(app, run_id, await load_state(session, run_id))

    _print_outcome(asyncio.run(_show()), False)


@tasks_app.command("resolve")
def resolve_task(
    run_id: str,
    action: str = typer.Option(..., "--action", help=f"One of: {', '.join(HUMAN_ACTIONS)}."),
    user: str = typer.Option(..., "--user", help="Who decides (recorded in the audit trail)."),
    note: str = typer.Option("", "--note"),
    org: str | None = typer.Option(None, "--org"),
    resume: bool = typer.Option(True, "--resume/--no-resume", help="Continue the run right away."),
) -> None:
    """Record a person's decision on a step waiting for a person (skip, mark_done, retry, abort)."""

    async def _resolve() -> dict[str, Any]:
        async with open_app() as app:
            organization = await resolve_org(app, org)
            with system_context(f"resolve run {run_id} for {user}", org_id=organization.id):
                async with unit_of_work(app.database.sessions) as session:
                    audit = AuditService.from_settings(app.settings)
                    state = await resolve_needs_human(session, run_id, action, user_id=user, note=note, audit=audit)
            if resume and not state.status.is_final:
                return await execute_run(app, organization.id, run_id)
            return summarise(app, run_id, state)

    _print_outcome(asyncio.run(_resolve()), False)
