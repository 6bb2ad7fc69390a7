"""``finrpa policy …``: check an organisation's Cedar policies before uploading them, and print the schema."""

from __future__ import annotations

from pathlib import Path

import typer

from finrpa.exceptions import ValidationFailedError
from finrpa.policy.policyset import PolicySource, compile_policies
from finrpa.policy.schema import default_policies_text, default_schema

policy_app = typer.Typer(name="policy", help="Cedar policies: validate, show the schema.", no_args_is_help=True)


@policy_app.command("validate")
def validate_command(
    files: list[Path] = typer.Argument(..., help="Cedar policy files (each policy with @id and @reason)."),
) -> None:
    """Validate policy files against FinRPA's schema together with the default policies."""
    schema = default_schema()
    sources = [PolicySource("default policies", default_policies_text())]
    for path in files:
        try:
            sources.append(PolicySource(str(path), path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise ValidationFailedError(f"Cannot read {path}: {exc.strerror}.") from exc
    compiled = compile_policies(sources, schema)
    for policy_id, info in compiled.info.items():
        if info.source != "default policies":
            effect = "require_approval" if info.requires_approval else info.effect
            typer.echo(f"ok  {policy_id:<40} {effect:<16} {info.reason}")
    typer.echo(f"{len(files)} file(s) valid; policy version {compiled.version}.")


@policy_app.command("schema")
def schema_command(
    defaults: bool = typer.Option(False, "--defaults", help="Print the default policies instead."),
) -> None:
    """Print the Cedar schema policies are validated against (or the shipped default policies)."""
    typer.echo(default_policies_text() if defaults else default_schema().text)
