"""Where a FinRPA run's wall time goes, by phase: the bench's ``--breakdown``.

A phase is the wall time spent inside one of FinRPA's own coroutines, summed over a run. The phases nest (an
action's screenshots are part of the action, the action part of its skill step) and are printed as a tree, so a
reader can compare each with the run's total and with the baseline's. Only the bench process is instrumented:
each function is wrapped in place for the bench's lifetime; nothing in FinRPA knows about it.
"""

from __future__ import annotations

import functools
import importlib
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

# (label, depth in the printed tree, module, attribute path). A function imported by name into another module
# is wrapped where it is called from (the controller calls the screenshot functions it imported).
PHASES: tuple[tuple[str, int, str, str], ...] = (
    ("claim the run", 0, "finrpa.runs.runner", "RunRunner.claim"),
    ("load its state from the journal", 0, "finrpa.runs.runner", "RunRunner.load_state"),
    ("prepare it (template, gate, journal)", 0, "finrpa.runs.runner", "RunRunner.prepare"),
    ("open the browser context", 0, "finrpa.runs.browser_session", "BrowserSession.ensure"),
    ("close the browser context", 0, "finrpa.runs.browser_session", "BrowserSession.close"),
    ("skill steps", 0, "finrpa.skills.base", "BaseSkill.run"),
    ("observe the page (snapshots)", 1, "finrpa.browser.controller", "Controller.observe"),
    ("browser actions", 1, "finrpa.browser.controller", "Controller._run"),
    ("resolve the target", 2, "finrpa.browser.controller", "Controller._prepare"),
    ("act and verify the effect", 2, "finrpa.browser.controller", "Controller._dispatch"),
    ("before-shots", 2, "finrpa.browser.controller", "capture"),
    ("wait for the previous after-shot's PNG", 2, "finrpa.browser.controller", "Controller._shot_taken"),
    ("after-shots, in the background (overlapped)", 1, "finrpa.browser.controller", "capture_with_state"),
    ("wait for the last masks to come down", 2, "finrpa.browser.screenshots", "masks_removed"),
    ("paint the masks", 2, "finrpa.browser.screenshots", "_paint_masks"),
    ("the PNG from the browser", 2, "finrpa.browser.screenshots", "_png"),
    ("wait for the step's last records", 1, "finrpa.browser.controller", "Controller.settled"),
    ("approval gate (risk, request, wait)", 1, "finrpa.runs.gate", "ApprovalGate.check"),
    ("journal commits (events, checkpoint, audit)", 0, "finrpa.runs.journal_sql", "SqlJournal.commit"),
)


class PhaseClock:
    """Sums the wall time spent in each of :data:`PHASES` while :attr:`on` is set."""

    def __init__(self) -> None:
        self.on = False
        self.totals: dict[str, float] = {label: 0.0 for label, *_ in PHASES}
        for label, _depth, module, path in PHASES:
            self._wrap(label, module, path)

    def _wrap(self, label: str, module: str, path: str) -> None:
        owner: Any = importlib.import_module(module)
        *parents, name = path.split(".")
        for part in parents:
            owner = getattr(owner, part)
        original: Callable[..., Awaitable[Any]] = getattr(owner, name)

        @functools.wraps(original)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.on:
                return await original(*args, **kwargs)
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                self.totals[label] += time.perf_counter() - started

        setattr(owner, name, timed)

    def start(self) -> None:
        self.totals = dict.fromkeys(self.totals, 0.0)
        self.on = True

    def stop(self) -> dict[str, float]:
        self.on = False
        return dict(self.totals)


def print_breakdown(flow: str, kind: str, runs: list[dict[str, float]], total: float, baseline: float) -> None:
    """The median seconds of each phase per run, as a tree under the run's median total."""
    extra = total - baseline
    print(f"  {flow}, FinRPA {kind}: run {total:.2f} s (baseline {baseline:.2f} s, difference {extra:+.2f} s)")
    for label, depth, *_ in PHASES:
        median = statistics.median(run[label] for run in runs)
        print(f"    {'  ' * depth}{label:<{48 - 2 * depth}}{median:>7.2f} s  {median / total:>5.0%}")
