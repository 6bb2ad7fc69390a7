"""What the browser set-up FinRPA needs costs before any of FinRPA's own logic runs: the floor under the ratios
bench_templates prints.

    python -m bench.bench_browser_floor [--repeat 5] [--flows bank_statement,bank_payment] [--shots 30]

Part 1 runs the hand-written baseline scripts of bench/baseline, interleaved in one browser, in five kinds of
browser context: as bench_templates runs them; with FinRPA's page model installed as an init script (every run
context has it: it counts DOM changes and answers snapshots, resolution and masking); with the run's egress
allowlist enforced as FinRPA enforces it (the allowlist as Chromium's proxy bypass list, every other request sent
to a RefusingProxy: finrpa.browser.egress_proxy); with both, which is what a FinRPA run's context costs; and, for
comparison, the allowlist enforced by a Playwright route over every request (FinRPA's earlier way: Playwright
pauses each request of a routed context to match it). Each enforcing kind is first checked to refuse the portal
under another host name. Printed: median seconds per run and the ratio to the plain context, measured side by side.

Part 2 prices one evidence screenshot on the payment form, medians over ``--shots`` repeats: one protocol round
trip (an evaluate), the next two frames (two requestAnimationFrame callbacks), a PNG capture of an unchanged page,
the same capture of a sixteenth of the pixels (a capture that costs about as long shows its time is spent waiting
for frames, not encoding), a PNG capture right after a change the page must repaint (a label's text), one right
after a DOM change, and FinRPA's capture_with_state (masks painted, PNG, masks removed) after a DOM change, as an
after-shot follows an action's effect. Each is also shown as a share of the payment baseline's run
from part 1: the share one PNG adds to a run that takes a screenshot after each state-changing action; and with the
CPU it costs (this process, the Playwright driver and every browser process, per step): a PNG keeps the browser's
compositor and encoder busy whatever overlaps it, and the machine has two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.baseline.flows import FLOWS
from bench.baseline.portal import login, open_menu
from bench.bench_templates import PAGED, PortalProcess, cpu_seconds, read_pages
from playwright.async_api import Browser, BrowserContext, Request, Route, async_playwright
from playwright.async_api import Error as PlaywrightError

from finrpa.browser.egress import EgressAllowlist
from finrpa.browser.egress_proxy import RefusedRequest, RefusingProxy
from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.browser.runtime import RunBrowser, RunBrowserConfig
from finrpa.browser.screenshots import capture_with_state
from finrpa.browser.script import page_model_js

KINDS = ("plain", "page model", "egress proxy", "both", "egress route")
# A change the page must repaint: the first label's text (its first four characters kept, a counter after them).
_RELABEL = "i => { const l = document.querySelector('label'); l.textContent = l.textContent.slice(0, 4) + i; }"


@dataclass(frozen=True)
class Portal:
    base_url: str
    allowlist: EgressAllowlist
    proxy_server: str  # a RefusingProxy's address


async def _route(portal: Portal, route: Route, request: Request) -> None:
    if portal.allowlist.allows_url(request.url):
        await route.fallback()
    else:
        await route.abort("blockedbyclient")


async def _context(browser: Browser, kind: str, portal: Portal) -> BrowserContext:
    proxy: Any = None
    if kind in ("egress proxy", "both"):
        proxy = {"server": portal.proxy_server, "bypass": portal.allowlist.proxy_bypass()}
    context = await browser.new_context(
        accept_downloads=True, locale="zh-CN", viewport={"width": 1366, "height": 900}, proxy=proxy
    )
    if kind in ("page model", "both"):
        await context.add_init_script(page_model_js())
    if kind == "egress route":
        await context.route("**/*", functools.partial(_route, portal))
    return context


async def check_blocking(browser: Browser, portal: Portal) -> None:
    """Every kind that enforces egress must refuse the same portal under another host name (localhost): the
    comparison is between working blocks."""
    outside = f"http://localhost:{urlsplit(portal.base_url).port}/bank/login"
    for kind in ("egress proxy", "both", "egress route"):
        context = await _context(browser, kind, portal)
        page = await context.new_page()
        try:
            await page.goto(outside, timeout=5000)
        except PlaywrightError:
            pass
        else:
            raise SystemExit(f"the {kind!r} context loaded {outside}, outside its allowlist")
        finally:
            await context.close()


async def run_flow(browser: Browser, flow: str, kind: str, portal: Portal, folder: Path) -> float:
    """One baseline run in a context of ``kind``, timed like bench_templates times it (context open to close)."""
    spec = FLOWS[flow]
    params = spec.params(folder, 42)
    started = time.perf_counter()
    context = await _context(browser, kind, portal)
    page = await context.new_page()
    await spec.runner("v1")(page, portal.base_url, params)
    if flow in PAGED:
        await read_pages(page, *PAGED[flow])
    await context.close()
    return time.perf_counter() - started


async def contexts(browser: Browser, portal: Portal, flows: list[str], repeat: int, root: Path) -> dict[str, float]:
    print(f"Part 1: baseline scripts in five kinds of context, {repeat} interleaved repeats (median seconds)")
    print(f"{'flow':<24}" + "".join(f"{kind:>14}{'ratio':>7}" for kind in KINDS))
    plain_medians: dict[str, float] = {}
    counter = 0
    for flow in flows:
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        for attempt in range(repeat):
            order = KINDS[attempt % len(KINDS) :] + KINDS[: attempt % len(KINDS)]
            for kind in order:
                counter += 1
                folder = root / f"{flow}-{counter}"
                folder.mkdir(parents=True)
                times[kind].append(await run_flow(browser, flow, kind, portal, folder))
        medians = {kind: statistics.median(values) for kind, values in times.items()}
        plain_medians[flow] = medians["plain"]
        print(f"{flow:<24}" + "".join(f"{medians[k]:>14.3f}{medians[k] / medians['plain']:>6.2f}x" for k in KINDS))
    return plain_medians


async def _median_ms(repeat: int, step: Callable[[int], Awaitable[Any]]) -> tuple[float, float]:
    """Median wall milliseconds of one step, and the mean CPU milliseconds one step costs this process, the
    Playwright driver and every browser process together (the CPU a run pays for it on a shared machine)."""
    samples = []
    cpu_started = cpu_seconds()
    for index in range(repeat):
        started = time.perf_counter()
        await step(index)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), (cpu_seconds() - cpu_started) * 1000 / repeat


async def screenshots(browser: Browser, portal: Portal, repeat: int, root: Path, payment_run_s: float | None) -> None:
    context = await _context(browser, "both", portal)
    page = await context.new_page()
    await login(page, portal.base_url, "bank", FLOWS["bank_payment"].params(root, 42), "v1")
    await open_menu(page, "对公付款")
    run = await RunBrowser.adopt(page, RunBrowserConfig(run_id="bench-floor", downloads_dir=root / "downloads"))
    tab = run.active_tab
    cdp = await context.new_cdp_session(page)

    async def change(index: int) -> None:
        await page.evaluate("i => { document.title = 'floor ' + i; document.body.dataset.floor = String(i); }", index)

    async def png(_: int, **options: Any) -> None:
        await cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True, **options})

    async def changed_png(index: int) -> None:
        await change(index)
        await png(index)

    async def small_png(index: int) -> None:
        viewport = page.viewport_size or {"width": 1366, "height": 900}
        await png(index, clip={"x": 0, "y": 0, **viewport, "scale": 0.25})

    async def repainted_png(index: int) -> None:
        await page.evaluate(_RELABEL, index)
        await png(index)

    async def finrpa_shot(index: int) -> None:
        await change(index)
        await capture_with_state(tab)

    steps: list[tuple[str, Callable[[int], Awaitable[Any]]]] = [
        ("one protocol round trip (evaluate)", lambda _: page.evaluate("1")),
        (
            "the next two frames (two rAF callbacks, 60 Hz)",
            lambda _: page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"),
        ),
        ("PNG of an unchanged page (CDP, fast encoder)", png),
        ("the same, a sixteenth of the pixels (scale 0.25)", small_png),
        ("a label's text changed (repainted), then PNG", repainted_png),
        ("DOM change, then PNG", changed_png),
        ("DOM change, then FinRPA capture_with_state", finrpa_shot),
        ("DOM change alone (subtract from the two above)", change),
    ]
    print(f"\nPart 2: one screenshot on the payment form, median of {repeat}")
    for label, step in steps:
        await step(0)  # warm up
        median, cpu = await _median_ms(repeat, step)
        share = f"   {median / 1000 / payment_run_s:6.1%} of the payment baseline run" if payment_run_s else ""
        print(f"  {label:<50}{median:8.2f} ms  CPU {cpu:6.1f} ms{share}")
    await run.close()
    await context.close()


async def bench(repeat: int, flows: list[str], shots: int) -> None:
    chromium = locate_chromium()
    assert chromium is not None, "Chromium is needed"
    with tempfile.TemporaryDirectory() as tmp, PortalProcess("v1") as sandbox:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
            refused: list[RefusedRequest] = []
            proxy = RefusingProxy(refused.append)
            allowlist = EgressAllowlist.build([sandbox.base_url])
            portal = Portal(sandbox.base_url, allowlist, await proxy.start())
            await check_blocking(browser, portal)
            medians = await contexts(browser, portal, flows, repeat, Path(tmp) / "runs")
            await screenshots(browser, portal, shots, Path(tmp), medians.get("bank_payment"))
            await proxy.close()
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flows", default="bank_statement,bank_payment")
    parser.add_argument("--shots", type=int, default=30)
    args = parser.parse_args()
    flows = [flow for flow in args.flows.split(",") if flow]
    unknown = sorted(set(flows) - set(FLOWS))
    if unknown:
        raise SystemExit(f"unknown flows {unknown}; choose from {sorted(FLOWS)}")
    asyncio.run(bench(args.repeat, flows, args.shots))


if __name__ == "__main__":
    main()
