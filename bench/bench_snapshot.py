"""Benchmark: page-snapshot build time and LLM token size per page, and the controller's per-action cost.

Pages: the bundled sandbox portals (v1 and v2 layouts, logged in) and the browser runtime's own fixture
pages. Per page: median snapshot build time (one injected call per frame + cleaned-DOM digest), element
count, and the token estimate of ``render_snapshot`` at the default 2k budget and uncapped (8k hard cap).
Then per-action cost: Controller.fill/click against the same hand-written Playwright calls, interleaved.

Run: .venv/bin/python bench/bench_snapshot.py [--repeat 5] [--skip-sandbox]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.browser import PAGES, serve_directory  # noqa: E402

from finrpa.browser import (  # noqa: E402
    BrowserManager,
    Controller,
    Expectation,
    RunBrowser,
    RunBrowserConfig,
    SecretText,
    estimate_tokens,
    render_snapshot,
)
from finrpa.browser.render import HARD_CAP_TOKENS  # noqa: E402

LOGIN = {"v1": ("用户名", "密码", "登录"), "v2": ("登录账号", "登录密码", "立即登录")}
USERS = {"bank": "corp_demo", "insurance": "agent_demo", "securities": "broker_demo"}
SANDBOX_PAGES = {
    "bank": ["/bank/", "/bank/statement", "/bank/statement?acctNo=1001020309000765432&startDate=2024-01-01"
             "&endDate=2024-03-31", "/bank/payment", "/bank/records"],
    "insurance": ["/insurance/", "/insurance/apply", "/insurance/claim", "/insurance/policies"],
    "securities": ["/securities/", "/securities/report", "/securities/trades", "/securities/order"],
}
FIXTURE_PAGES = ["login.html", "controls.html", "frames.html", "widgets.html", "mutations.html"]


async def measure(controller: Controller, label: str, repeat: int, rows: list[tuple[str, ...]]) -> None:
    times = []
    snapshot = await controller.observe()
    for _ in range(repeat):
        snapshot = await controller.observe()
        times.append(snapshot.build_ms)
    default = estimate_tokens(render_snapshot(snapshot))
    full_text = render_snapshot(snapshot, token_budget=HARD_CAP_TOKENS)
    full = estimate_tokens(full_text)
    note = "truncated" if "omitted" in full_text else ""
    rows.append((label, f"{statistics.median(times):.0f}", str(len(snapshot.elements)), str(len(snapshot.frames)),
                 str(default), str(full), note))


async def sandbox_pages(manager: BrowserManager, repeat: int, rows: list[tuple[str, ...]]) -> None:
    from finrpa.sandbox.config import SandboxConfig
    from finrpa.sandbox.server import SandboxServer

    for layout in ("v1", "v2"):
        with SandboxServer(SandboxConfig(port=0, layout=layout)) as server, tempfile.TemporaryDirectory() as folder:
            for portal, paths in SANDBOX_PAGES.items():
                run = await manager.new_run(RunBrowserConfig(run_id="bench", downloads_dir=Path(folder),
                                                             portal_urls=[server.base_url]))
                controller = Controller(run, screenshots=False)
                await controller.navigate(f"{server.base_url}/{portal}/login")
                await measure(controller, f"{layout} /{portal}/login", repeat, rows)
                await login(controller, layout, portal)
                for path in paths:
                    await controller.navigate(server.base_url + path)
                    await asyncio.sleep(0.3)  # let iframes and components attach
                    await measure(controller, f"{layout} {path.split('?')[0]}{'?…' if '?' in path else ''}",
                                  repeat, rows)
                await run.close()


async def login(controller: Controller, layout: str, portal: str) -> None:
    user, password, button = LOGIN[layout]
    snapshot = await controller.observe()
    await controller.fill(snapshot, snapshot.find(name=user)[0].ref, USERS[portal])
    await controller.fill(snapshot, snapshot.find(name=password)[0].ref, SecretText("demo123"))
    await controller.click(snapshot, snapshot.find(name=button, role="button")[0].ref,
                           expect=Expectation(url_matches=rf"/{portal}/$"))


async def fixture_pages(manager: BrowserManager, base_url: str, repeat: int, rows: list[tuple[str, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = await manager.new_run(RunBrowserConfig(run_id="bench", downloads_dir=Path(folder),
                                                     portal_urls=[base_url], extra_hosts=["localhost"]))
        controller = Controller(run, screenshots=False)
        for page in FIXTURE_PAGES:
            await controller.navigate(f"{base_url}/{page}")
            await asyncio.sleep(0.3)
            await measure(controller, f"fixture {page}", repeat, rows)
        await run.close()


async def generated_page(manager: BrowserManager, repeat: int, rows: list[tuple[str, ...]]) -> None:
    """The 5,000-element statement page of bench_dom_hash.py: a stress case for build time and the cap."""
    from bench.bench_dom_hash import generated_page as page_html

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "big.html").write_text(page_html(), encoding="utf-8")
        server, site = serve_directory(Path(folder))
        run = await manager.new_run(RunBrowserConfig(run_id="bench", downloads_dir=Path(folder),
                                                     portal_urls=[site.base_url]))
        controller = Controller(run, screenshots=False)
        await controller.navigate(site.url("big.html"))
        await measure(controller, "generated 5,000 elements", repeat, rows)
        await run.close()
        server.shutdown()


async def action_cost(manager: BrowserManager, base_url: str, rounds: int) -> None:
    """Fill three fields and click a button: hand-written Playwright vs Controller (without/with screenshots)."""
    with tempfile.TemporaryDirectory() as folder:
        runs: dict[str, RunBrowser] = {}
        for name in ("playwright", "controller", "controller+screenshots"):
            runs[name] = await manager.new_run(RunBrowserConfig(run_id=name, downloads_dir=Path(folder),
                                                                portal_urls=[base_url]))
        timings: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, run in runs.items():
                timings[name].append(await _one_round(name, run, base_url))
        for run in runs.values():
            await run.close()
    base = statistics.median(timings["playwright"])
    print("\nper-action cost (3 fills + 1 verified click on fixture mutations.html, median of "
          f"{rounds} interleaved rounds, snapshot included for the controller):")
    for name, values in timings.items():
        median = statistics.median(values)
        print(f"  {name:24s} {median:7.1f} ms  ratio {median / base:4.2f}  ({median / 4:.1f} ms per action)")


async def _one_round(name: str, run: RunBrowser, base_url: str) -> float:
    page_url = f"{base_url}/mutations.html"
    if name == "playwright":
        page = run.active_tab.page if run.tabs else (await run.new_tab()).page
        await page.goto(page_url)
        started = time.perf_counter()
        for label, value in (("收款账号", "6222020200012345678"), ("金额", "88.00"), ("用途", "货款")):
            await page.get_by_label(label, exact=True).fill(value)
        await page.get_by_role("button", name="提交", exact=True).click()
        await page.get_by_text("已提交").wait_for()
        return (time.perf_counter() - started) * 1000
    controller = Controller(run, screenshots=name.endswith("screenshots"))
    await controller.navigate(page_url)
    started = time.perf_counter()
    snapshot = await controller.observe()
    for label, value in (("收款账号", "6222020200012345678"), ("金额", "88.00"), ("用途", "货款")):
        await controller.fill(snapshot, snapshot.find(name=label)[0].ref, value)
    await controller.click(snapshot, snapshot.find(name="提交", role="button")[0].ref,
                           expect=Expectation(text_visible="已提交"))
    return (time.perf_counter() - started) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--skip-sandbox", action="store_true")
    args = parser.parse_args()
    server, site = serve_directory(PAGES)
    rows: list[tuple[str, ...]] = []
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    async with BrowserManager() as manager:
        if not args.skip_sandbox:
            await sandbox_pages(manager, args.repeat, rows)
        await fixture_pages(manager, site.base_url, args.repeat, rows)
        await generated_page(manager, args.repeat, rows)
        header = ("page", "build ms", "elements", "frames", "tokens@2k", "tokens full", "")
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        builds = [float(r[1]) for r in rows]
        tokens = [int(r[4]) for r in rows]
        print(f"\nmedian build {statistics.median(builds):.0f} ms, max {max(builds):.0f} ms; "
              f"median tokens@2k {statistics.median(tokens):.0f}, max full {max(int(r[5]) for r in rows)}")
        await action_cost(manager, site.base_url, args.rounds)
    server.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
