"""Benchmark: DOM clean + hash latency on a generated 5,000-element portal page (target: median ≤ 15 ms).

Run: .venv/bin/python bench/bench_dom_hash.py
"""

from __future__ import annotations

import os
import random
import statistics
import time

from finrpa.browser.dom_clean import clean_dom, dom_hash

TARGET_MS = 15.0


def generated_page(elements: int = 5000, seed: int = 7) -> str:
    """A statement-query page: a form, a navigation menu and a long results table, with volatile ids."""
    rng = random.Random(seed)
    parts = ['<!DOCTYPE html><html><head><meta name="csrf-token" content="x9f8e7d6c5b4a3928170">',
             "<script>window.__INITIAL__ = {ts: 1700000000123};</script><style>.a{color:red}</style></head><body>"]
    count = 0
    while count < elements:
        uid = rng.randrange(10**6)
        row = (
            f'<tr id="row-{uid}" class="tr-{uid:x} striped" data-reactid=".0.{count}">'
            f'<td class="c1" style="width:90px">2024-03-{count % 28 + 1:02d} 10:{count % 60:02d}:00</td>'
            f'<td class="c2"><span class="s-{uid:x}">转账 摘要 {count}</span></td>'
            f'<td class="c3"><input type="checkbox" id="cb-{uid}" value="{uid}"></td>'
            f'<td class="c4"><a href="/detail?id={uid}&amp;_t={uid * 7}" data-testid="d{count}">详情</a></td></tr>'
        )
        parts.append(row)
        count += 7  # tr, 4×td, span, input… about 7 elements per row
    parts.append('<form><input type="hidden" name="_token" value="abcdef0123456789"></form></body></html>')
    return "".join(parts)


def _timed(html: str, runs: int) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        dom_hash(html)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu


def main() -> None:
    html = generated_page()
    elements = html.count("<") - html.count("</")
    _timed(html, 3)
    wall, cpu = _timed(html, 40)
    median, cpu_median = statistics.median(wall), statistics.median(cpu)
    print(f"page: {len(html) / 1024:.0f} KiB, {elements} elements; cleaned {len(clean_dom(html)) / 1024:.0f} KiB")
    print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"dom_hash median {median:.2f} ms wall ({cpu_median:.2f} ms CPU), p90 {sorted(wall)[35]:.2f} ms")
    print(f"ratio to the {TARGET_MS:.0f} ms target: {median / TARGET_MS:.2f} wall, {cpu_median / TARGET_MS:.2f} CPU")


if __name__ == "__main__":
    main()
