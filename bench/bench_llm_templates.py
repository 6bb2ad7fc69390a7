"""Benchmark: LLM calls and tokens per run of the six templates in LLM mode, cold vs warm, and the router's tier
mix over the pages the LLM was asked about.

* Each template runs in LLM mode (``finrpa run TEMPLATE --mode llm``, see finrpa.runs.llm_mode) on the real run
  path — RunRunner over a SQLite database, the demo organisation, effect ledger, policy and approval gate (an
  approver says yes to whatever is asked) — against the sandbox portals (layout v1, dynamic ids) in headless
  Chromium. The LLM is the local scripted server answered by tests/fixtures/template_operator.py, which reads
  the goal and the snapshot it is sent and answers like a careful model, so every decision is a real SDK call
  recorded in ``llm_calls``. Run 1 is cold (an empty action cache for that template); runs 2…1+N are warm and
  reuse the cache's verified decisions. Each run has its own business id, so every run performs its effect.
  Calls and tokens are read back from each run's ``llm_calls`` rows; each run's effect is checked in the
  sandbox's records. Target: at least 90 % fewer LLM calls warm than cold.
* Tier mix: the router's decision for every page the LLM was asked about (``llm_router_decisions`` of the cold
  runs), by tier.

The free-form goal (cold vs warm) is measured by bench/bench_llm_runs.py.

Run: .venv/bin/python -m bench.bench_llm_templates
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted LLM lives in tests/

from tests.fixtures.llm_server import ScriptedLLMServer
from tests.fixtures.llm_template_runs import TEMPLATE_CASES, LLMRunFigures, llm_run_path, run_errors, run_in_llm_mode
from tests.fixtures.template_operator import TemplateOperator

from finrpa.agents.plan import TaskStatus
from finrpa.browser import BrowserManager
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer

WARM_RUNS = 3
TARGET = 0.90


async def template_series(
    name: str, sandbox: SandboxServer, server: ScriptedLLMServer, manager: BrowserManager
) -> list[LLMRunFigures]:
    """One cold and WARM_RUNS warm runs of one template, on a fresh database and an empty action cache."""
    folder = Path(tempfile.mkdtemp(prefix=f"finrpa-bench-{name}-"))
    case = TEMPLATE_CASES[name]
    runs: list[LLMRunFigures] = []
    async with llm_run_path(server, f"sqlite+aiosqlite:///{folder / 'finrpa.db'}", folder / "var", manager) as path:
        for number in range(1 + WARM_RUNS):
            arguments = case.arguments(sandbox.base_url, folder / "var", sandbox.config.seed, number)
            figures = await run_in_llm_mode(path, name, arguments)
            if figures.state.status is not TaskStatus.COMPLETED:
                errors = "; ".join(await run_errors(path, figures.run_id))
                raise SystemExit(f"{name} run {number + 1} ended {figures.state.status.value}: {errors}")
            state = httpx.get(f"{sandbox.base_url}/__sandbox__/state", timeout=10).json()
            case.check(state, figures.results, folder / "var")
            runs.append(figures)
    return runs


def print_table(series: dict[str, list[LLMRunFigures]]) -> None:
    print(f"\nsix templates in LLM mode, 1 cold + {WARM_RUNS} warm runs each (RunRunner, SQLite, llm_calls rows)")
    header = (
        f"{'template':32} {'cold calls':>10} {'cold tokens':>11} {'warm calls':>10} {'warm tokens':>11} "
        f"{'cache hits':>10} {'saved':>6} {'cold s':>7} {'warm s':>7}"
    )
    print(header)
    print("-" * len(header))
    totals = [0, 0, 0.0, 0.0]
    for name, runs in series.items():
        cold, warm = runs[0], runs[1:]
        calls = statistics.median(run.calls for run in warm)
        tokens = statistics.median(run.tokens for run in warm)
        hits = statistics.median(run.cache_hits for run in warm)
        seconds = statistics.median(run.seconds for run in warm)
        saved = 1 - calls / cold.calls if cold.calls else float("nan")
        totals = [totals[0] + cold.calls, totals[1] + cold.tokens, totals[2] + calls, totals[3] + tokens]
        print(
            f"{name:32} {cold.calls:10d} {cold.tokens:11d} {calls:10g} {tokens:11g} {hits:10g} {saved:6.0%} "
            f"{cold.seconds:7.2f} {seconds:7.2f}"
        )
    saved_all = 1 - totals[2] / totals[0] if totals[0] else float("nan")
    print("-" * len(header))
    print(f"{'all six':32} {totals[0]:10g} {totals[1]:11g} {totals[2]:10g} {totals[3]:11g} {'':10} {saved_all:6.0%}")
    missed = [name for name, runs in series.items() if runs[0].calls and _saved(runs) < TARGET]
    verdict = "met for every template" if not missed else f"missed for {', '.join(missed)}"
    print(f"target ≥ {TARGET:.0%} fewer LLM calls warm (median of {WARM_RUNS}) than cold: {verdict}")


def _saved(runs: list[LLMRunFigures]) -> float:
    return 1 - statistics.median(run.calls for run in runs[1:]) / runs[0].calls


def print_tier_mix(series: dict[str, list[LLMRunFigures]]) -> None:
    print("\nrouter tier per page the LLM was asked about (cold runs; llm_router_decisions)")
    mix: Counter[str] = Counter()
    for name, runs in series.items():
        for signature, tier in runs[0].page_tiers.items():
            mix[tier] += 1
            print(f"  {name:32} page {signature[:16]}  {tier}")
    total = sum(mix.values())
    shares = ", ".join(f"{tier} {count} ({count / total:.0%})" for tier, count in sorted(mix.items()))
    print(f"tier mix over {total} pages: {shares or 'no LLM call was routed'}")
    calls: Counter[str] = Counter()
    for runs in series.values():
        calls.update(runs[0].call_tiers)
    print("LLM calls by tier (cold runs): " + ", ".join(f"{tier} {n}" for tier, n in sorted(calls.items())))


async def main() -> None:
    operator = TemplateOperator()
    with (
        SandboxServer(SandboxConfig(port=0, dynamic_ids=True, expose_state=True)) as sandbox,
        ScriptedLLMServer() as server,
    ):
        server.set_handler(operator)
        async with BrowserManager() as manager:
            series = {name: await template_series(name, sandbox, server, manager) for name in TEMPLATE_CASES}
    print_table(series)
    print_tier_mix(series)
    print(f"\nscripted LLM: {operator.decisions} next-action requests answered in all runs")


if __name__ == "__main__":
    asyncio.run(main())
