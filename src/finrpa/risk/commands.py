"""``finrpa risk …``: compliance teams test keyword libraries and thresholds from the command line."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import typer
from pydantic import ValidationError

from finrpa.risk.config import RiskConfig, load_risk_config
from finrpa.risk.schemas import RiskInput
from finrpa.risk.service import RiskAssessor
from finrpa.risk.stage2 import RiskAnalyst

risk_app = typer.Typer(name="risk", help="Risk detection: assess proposed actions.", no_args_is_help=True)


@risk_app.command("assess")
def assess_command(
    source: str = typer.Argument("-", metavar="[FILE|-]", help="JSON lines to assess; '-' reads stdin."),
    no_llm: bool = typer.Option(False, "--no-llm", help="Stage 1 only, even when an LLM is configured."),
    org_config: Path | None = typer.Option(
        None, "--org-config", help="YAML/JSON file with the organisation's thresholds, FX table and keywords."
    ),
) -> None:
    """Print one JSON RiskDecision per input line (id echoed, final_level low/medium/high/critical)."""
    config = load_risk_config(org_config) if org_config else RiskConfig()
    assessor = RiskAssessor(config, None if no_llm else _configured_analyst(config))
    if source == "-":
        failures = asyncio.run(_assess_lines(assessor, sys.stdin, sys.stdout))
    else:
        with Path(source).open(encoding="utf-8") as handle:
            failures = asyncio.run(_assess_lines(assessor, handle, sys.stdout))
    if failures:
        typer.echo(f"{failures} line(s) could not be read; fix them and run again.", err=True)
        raise typer.Exit(1)


async def _assess_lines(assessor: RiskAssessor, lines: Iterable[str], out: TextIO) -> int:
    try:
        return await _write_decisions(assessor, lines, out)
    finally:
        await assessor.aclose()


async def _write_decisions(assessor: RiskAssessor, lines: Iterable[str], out: TextIO) -> int:
    failures = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            action = RiskInput.model_validate_json(line)
        except ValidationError as exc:
            failures += 1
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "line"
            typer.echo(f"line {number}: {where}: {first['msg']}", err=True)
            continue
        decision = await assessor.assess(action)
        out.write(decision.model_dump_json() + "\n")
    return failures


def _configured_analyst(config: RiskConfig) -> RiskAnalyst | None:
    """The LLM analyst when an LLM is configured, else None (stage 1 decides alone)."""
    from finrpa.risk.llm_analyst import analyst_from_settings

    return analyst_from_settings(config)
