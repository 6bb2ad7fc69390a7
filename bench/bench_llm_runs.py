"""Benchmark: LLM calls and tokens per free-form goal run, cold vs warm, and the router's tier mix.

* The goal "下载 2024 年第一季度的银行流水" as a goal run on the real run path (RunRunner over a SQLite database,
  vault secrets, event log, audit rows, ``llm_calls`` rows): planned by the LLM planner when the run starts,
  login as a skill; opening the statement page, the query, a walk over all 12 result pages and the CSV export
  by the LLM loop, against the sandbox bank in headless Chromium, with a scripted local LLM that answers from
  the snapshots it is sent. Calls and tokens are read back from the run's ``llm_calls`` rows. Run 1 is cold;
  later runs reuse verified action-cache entries (and, in the first series, the remembered plan). Target: at
  least 90 % fewer LLM calls warm than cold.
* The router's tier for every page of the sandbox portals in layouts v1 and v2, from features measured on the
  live page.

Run: .venv/bin/python -m bench.bench_llm_runs
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted server lives in tests/

from tests.fixtures.llm_server import RecordedRequest, ScriptedLLMServer, scripted_llm_settings
from tests.integration.agents.scripted_operator import ScriptedOperator, SeenPage, next_page_rule

from finrpa.agents.coordinator import Backoff
from finrpa.agents.plan import TaskStatus
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager, Controller, RunBrowserConfig
from finrpa.cache import InProcessKeyValueStore
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.db.engine import unit_of_work
from finrpa.llm import ModelRouter, RouterThresholds, page_signature, run_llm_usage
from finrpa.llm.page_features import measure_page_features
from finrpa.runs.goal_runs import GoalScope
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.runs.secrets import vault_secrets
from finrpa.runs.service import GoalRunRequest, create_goal_run
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context

GOAL = "下载 2024 年第一季度的银行流水"
ACCOUNT = "1001020309000123456"
WARM_RUNS = 3
SKILLS = {"LoginSkill", "FileDownloadSkill", "PaginationSkill", "TableExtractSkill"}
ACTIONS = {"click", "fill", "select", "press", "download"}
PLAN = {
    "steps": [
        {"step_id": "login", "goal": "登录企业网银", "skill": "LoginSkill",
         "params": {"url": "{{bank_url}}", "username": "{{username}}", "password": "{{secret:password}}"}},
        {"step_id": "open_statement", "goal": "打开账户明细查询页面", "actions": ["click"],
         "completion": {"kind": "element_visible", "role": "button", "value": "查询"}},
        {"step_id": "query", "goal": "查询账户 2024 年第一季度的明细", "actions": ["fill", "click", "press"],
         "inputs": {"account_number": "{{account_number}}", "start_date": "2024-01-01", "end_date": "2024-03-31"},
         "completion": {"kind": "table_visible", "value": "交易明细"}},
        {"step_id": "walk", "goal": "逐页浏览交易明细，直到最后一页", "actions": ["click"], "max_steps": 30,
         "completion": {"kind": "element_absent", "role": "link", "value": "下一页"}},
        {"step_id": "export", "goal": "导出账户明细的CSV文件", "actions": ["download"],
         "completion": {"kind": "download"}},
    ]
}  # fmt: skip


def query(seen: SeenPage) -> dict[str, Any]:
    start, end = seen.find("开始日期", "textbox"), seen.find("结束日期", "textbox")
    if start is not None and start.value != "2024-01-01":
        return seen.act("fill", start, value="{{start_date}}")
    if end is not None and end.value != "2024-03-31":
        return seen.act("fill", end, value="{{end_date}}")
    if seen.dialogs:
        return seen.act("press", key="Escape")
    return seen.act("click", seen.find("查询", "button"))


def plan_reply(_: RecordedRequest) -> dict[str, Any]:
    return PLAN


OPERATOR = ScriptedOperator(
    {
        "打开账户明细查询页面": lambda seen: seen.act("click", seen.find("账户明细查询", "link")),
        "查询账户": query,
        "逐页浏览": next_page_rule(),
        "导出账户明细": lambda seen: seen.act("download", seen.find("导出CSV", "link")),
    },
    plan=plan_reply,
)


@dataclass
class RunFigures:
    calls: int
    tokens: int
    hits: int
    seconds: float
    status: str


@dataclass
class Bench:
    """The real run path: an application database, the demo organisation (its vault holds the bank password)
    and one runner, whose LLM services (action cache, plan memory, router) are shared by its runs."""

    app: App
    org_id: str
    dept_id: str
    runner: RunRunner


@asynccontextmanager
async def real_run_path(server: ScriptedLLMServer, manager: BrowserManager) -> AsyncIterator[Bench]:
    folder = Path(tempfile.mkdtemp(prefix="finrpa-bench-llm-"))
    settings = scripted_llm_settings(server, database_url=f"sqlite+aiosqlite:///{folder / 'finrpa.db'}",
                                     data_dir=folder / "var")  # fmt: skip
    async with open_app(settings, auto_migrate=True) as app:
        demo = await seed_demo_org(app)
        audit = AuditService.from_settings(settings)
        runner = RunRunner(settings, app.database, audit=audit, manager=manager,
                           secrets=vault_secrets(app.database.sessions, settings, audit),
                           options=RunnerOptions(screenshots=False, backoff=Backoff(0.01, 1.0, 0.01)))  # fmt: skip
        try:
            yield Bench(app, demo.org_id, demo.dept_id, runner)
        finally:
            await runner.close()


async def goal_run(bench: Bench, sandbox: SandboxServer) -> RunFigures:
    """One goal run as `finrpa run --goal` starts it: planned by the LLM when it starts, then executed."""
    arguments = {"bank_url": f"{sandbox.base_url}/bank/login", "username": "corp_demo",
                 "password": f"secret://{BANK_PASSWORD_SECRET}", "account_number": ACCOUNT}  # fmt: skip
    request = GoalRunRequest(GOAL, arguments, GoalScope(frozenset(SKILLS), frozenset(ACTIONS)), dept_id=bench.dept_id)
    started = time.perf_counter()
    with system_context("bench: a goal run", org_id=bench.org_id):
        async with unit_of_work(bench.app.database.sessions) as session:
            run_id = (await create_goal_run(session, request)).id
    final = await bench.runner.execute(run_id, bench.org_id)
    seconds = time.perf_counter() - started
    with system_context("bench: the run's LLM usage", org_id=bench.org_id):
        async with unit_of_work(bench.app.database.sessions) as session:
            usage = await run_llm_usage(session, bench.org_id, run_id)
    status = final.status.value if final.status is TaskStatus.COMPLETED else f"{final.status.value}: {final.last_error}"
    return RunFigures(usage.llm_calls, usage.tokens, usage.cache_hits, seconds, status)


async def goal_series(
    sandbox: SandboxServer, server: ScriptedLLMServer, manager: BrowserManager, remember_plans: bool
) -> None:
    async with real_run_path(server, manager) as bench:
        if not remember_plans:
            bench.runner.goal_services().memory = None
        runs = [await goal_run(bench, sandbox) for _ in range(1 + WARM_RUNS)]
    cold, warm = runs[0], runs[1:]
    title = "plan remembered" if remember_plans else "planned again every run"
    print(f"\ngoal run {GOAL!r} ({title}); 1 cold + {WARM_RUNS} warm runs through RunRunner (SQLite, llm_calls rows)")
    print(f"{'run':8} {'LLM calls':>9} {'tokens':>8} {'cache hits':>10} {'seconds':>8}  status")
    for number, run in enumerate(runs, 1):
        label = "cold" if number == 1 else f"warm {number - 1}"
        print(f"{label:8} {run.calls:9d} {run.tokens:8d} {run.hits:10d} {run.seconds:8.2f}  {run.status}")
    calls = statistics.median(run.calls for run in warm)
    tokens = statistics.median(run.tokens for run in warm)
    seconds = statistics.median(run.seconds for run in warm)
    print(
        f"warm median: {calls:g} calls, {tokens:g} tokens, {seconds:.2f} s — "
        f"{1 - calls / cold.calls:.0%} fewer calls, {1 - tokens / cold.tokens:.0%} fewer tokens, "
        f"{cold.seconds / seconds:.2f}x the cold run's speed (target: ≥ 90 % fewer calls)"
    )


PORTAL_PAGES = {
    "bank": ["/bank/", "/bank/statement", "/bank/statement?{stmt}", "/bank/payment", "/bank/records"],
    "insurance": ["/insurance/apply", "/insurance/claim", "/insurance/policies"],
    "securities": ["/securities/report", "/securities/trades", "/securities/order"],
}
USERS = {"bank": "corp_demo", "insurance": "agent_demo", "securities": "broker_demo"}
STATEMENT_QUERY = {
    "v1": f"acctNo={ACCOUNT}&startDate=2024-01-01&endDate=2024-03-31",
    "v2": f"accountNumber={ACCOUNT}&beginDt=2024-01-01&finishDt=2024-03-31",
}


async def sign_in(controller: Controller, base_url: str, portal: str) -> None:
    await controller.navigate(f"{base_url}/{portal}/login")
    snapshot = await controller.observe()
    user = next(e for e in snapshot.elements if e.role == "textbox" and e.type != "password")
    password = next(e for e in snapshot.elements if e.type == "password")
    submit = next(e for e in snapshot.elements if e.role == "button" and e.name in ("登录", "立即登录"))
    await controller.fill(snapshot, user.ref, USERS[portal])
    await controller.fill(snapshot, password.ref, DEMO_PASSWORD)
    await controller.click(snapshot, submit.ref)


async def tier_mix(sandbox: SandboxServer, manager: BrowserManager) -> None:
    router = ModelRouter(InProcessKeyValueStore(), RouterThresholds())
    mix: Counter[str] = Counter()
    print(f"\nrouter tier per sandbox page (thresholds: {RouterThresholds()})")
    print(f"{'layout':6} {'page':34} {'elements':>8} {'frames':>6} {'shadow':>6} {'fields':>6} {'ajax':>5}  tier")
    for layout in ("v1", "v2"):
        sandbox.set_config(layout=layout)
        run = await manager.new_run(RunBrowserConfig(run_id=f"mix-{layout}", downloads_dir=Path(tempfile.mkdtemp()),
                                                     portal_urls=[sandbox.base_url]))  # fmt: skip
        controller = Controller(run, screenshots=False)
        for portal, paths in PORTAL_PAGES.items():
            await controller.navigate(f"{sandbox.base_url}/{portal}/login")
            await measure_and_print(controller, router, layout, f"/{portal}/login", mix)
            await sign_in(controller, sandbox.base_url, portal)
            for path in paths:
                await controller.navigate(sandbox.base_url + path.format(stmt=STATEMENT_QUERY[layout]))
                await measure_and_print(
                    controller, router, layout, path.split("?")[0] + ("?query" * ("?" in path)), mix
                )
        await run.close()
    sandbox.set_config(layout="v1")
    total = sum(mix.values())
    print("tier mix: " + ", ".join(f"{tier} {count} ({count / total:.0%})" for tier, count in sorted(mix.items())))


async def measure_and_print(
    controller: Controller, router: ModelRouter, layout: str, label: str, mix: Counter[str]
) -> None:
    page = controller.run.active_tab.page
    features = await measure_page_features(page)
    decision = await router.route("org-bench", page_signature(page.url, await page.title()), features)
    mix[decision.tier.value] += 1
    print(
        f"{layout:6} {label:34} {features.element_count:8d} {features.iframe_depth:6d} "
        f"{'yes' if features.has_shadow_dom else 'no':>6} {features.form_field_count:6d} "
        f"{'yes' if features.dynamic_content else 'no':>5}  {decision.tier.value} ({decision.complexity.value})"
    )


async def main() -> None:
    with SandboxServer(SandboxConfig(port=0, dynamic_ids=True)) as sandbox, ScriptedLLMServer() as server:
        server.set_handler(OPERATOR)
        async with BrowserManager() as manager:
            await goal_series(sandbox, server, manager, remember_plans=True)
            await goal_series(sandbox, server, manager, remember_plans=False)
            await tier_mix(sandbox, manager)


if __name__ == "__main__":
    asyncio.run(main())
