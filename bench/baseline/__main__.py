"""Run one baseline flow against an in-process sandbox (or --base-url) and print its timings.

python -m bench.baseline bank_statement --layout v2 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.baseline.flows import FLOWS
from playwright.async_api import async_playwright

from finrpa.browser.locate import CHROMIUM_ARGS, MISSING_CHROMIUM_HELP, locate_chromium
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer


async def _run(flow_name: str, layout: str, base_url: str, repeat: int, seed: int) -> list[float]:
    chromium = locate_chromium()
    if chromium is None:
        raise SystemExit(MISSING_CHROMIUM_HELP)
    flow = FLOWS[flow_name]
    timings: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
        for attempt in range(repeat):
            with tempfile.TemporaryDirectory() as folder:
                context = await browser.new_context(accept_downloads=True)
                page = await context.new_page()
                started = time.perf_counter()
                result = await flow.runner(layout)(page, base_url, flow.params(Path(folder), seed))
                timings.append(time.perf_counter() - started)
                await context.close()
            print(f"run {attempt + 1}: {timings[-1] * 1000:.0f} ms  {result}")
        await browser.close()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline", description=__doc__)
    parser.add_argument("flow", choices=sorted(FLOWS))
    parser.add_argument("--layout", choices=("v1", "v2"), default="v1")
    parser.add_argument("--base-url", help="A running sandbox (default: start one in-process).")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    if args.base_url:
        timings = asyncio.run(_run(args.flow, args.layout, args.base_url, args.repeat, args.seed))
    else:
        with SandboxServer(SandboxConfig(port=0, layout=args.layout, seed=args.seed)) as server:
            timings = asyncio.run(_run(args.flow, args.layout, server.base_url, args.repeat, args.seed))
    median_ms = statistics.median(timings) * 1000
    print(f"{args.flow} {args.layout}: median {median_ms:.0f} ms over {len(timings)} runs")


if __name__ == "__main__":
    main()
