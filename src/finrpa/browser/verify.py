"""Postconditions: wait (event-driven, no fixed sleeps) until an action's effect is observable."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from finrpa.browser.actions import Expectation
from finrpa.browser.frames import frame_tree
from finrpa.browser.runtime import RunBrowser, Tab
from finrpa.browser.script import invoke
from finrpa.kit.tasks import retrieved

_MAX_PAUSE_S = 0.25


@dataclass
class Baseline:
    """What the tab looked like just before an action."""

    main_navigations: int
    dialogs: int
    downloads: int
    tabs: int
    frame: Frame
    counters: dict[str, Any]

    @classmethod
    def take(cls, run: RunBrowser, tab: Tab, frame: Frame, counters: dict[str, Any]) -> Baseline:
        return cls(tab.main_navigations, tab.dialog_count, len(tab.downloads), len(run.tabs), frame, counters)


async def counters_of(frame: Frame, timeout_s: float = 3.0) -> dict[str, Any] | None:
    """The page-model counters of ``frame``, or None when its document is gone (it navigated) or blocked
    (a native dialog stops the page's scripts)."""
    try:
        result = await asyncio.wait_for(invoke(frame, "counters"), timeout_s)
    except (PlaywrightError, TimeoutError):
        return None
    return result if isinstance(result, dict) else None


def _events_changed(run: RunBrowser, tab: Tab, base: Baseline) -> bool:
    return (
        tab.main_navigations > base.main_navigations
        or tab.dialog_count > base.dialogs
        or len(tab.downloads) > base.downloads
        or len(run.tabs) > base.tabs
    )


async def _pause(tab: Tab, frame: Frame, since: int, seconds: float) -> None:
    """Return on the next DOM change in ``frame``, tab activity, or after ``seconds``."""
    ms = max(1, int(seconds * 1000))
    change = asyncio.ensure_future(
        frame.evaluate("([s, ms]) => window.__finrpa_pm ? window.__finrpa_pm.nextChange(s, ms) : null", [since, ms])
    )
    activity = asyncio.ensure_future(tab.activity.wait())
    _done, pending = await asyncio.wait({change, activity}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in (change, activity):
        with contextlib.suppress(asyncio.CancelledError, PlaywrightError):
            await task


async def wait_for_change(
    run: RunBrowser, tab: Tab, base: Baseline, timeout_s: float
) -> tuple[bool, dict[str, Any] | None]:
    """Wait until something observable changed. Returns (changed, the frame's counters when it still
    shows the same document and no dialog blocks it)."""
    deadline = time.monotonic() + timeout_s
    while True:
        tab.activity.clear()
        if tab.pending_dialog is not None:
            return True, None
        if base.frame is tab.page.main_frame and tab.main_navigations > base.main_navigations:
            return True, None  # the page navigated: the caller reads the new document once it is parsed
        counters = await counters_of(base.frame)
        if counters is None or counters.get("doc") != base.counters.get("doc"):
            return True, None
        if _events_changed(run, tab, base) or _counters_changed(counters, base.counters):
            return True, counters
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False, None
        await _pause(tab, base.frame, int(counters["changes"]), min(remaining, _MAX_PAUSE_S))


async def wait_for_frames_change(tab: Tab, seen: dict[str, tuple[str, int] | None], timeout_s: float) -> bool:
    """Wait until the tab shows something other than what ``seen`` read (frame path → document token and change
    count, None for a frame that could not be read): a DOM change or another document in one of those frames, a
    frame added or gone, or tab activity (a dialog, download, popup or main-frame navigation). True on a change,
    False after ``timeout_s`` without one."""
    if tab.pending_dialog is not None or tab.page.is_closed():
        return True
    nodes = frame_tree(tab.page)
    if {node.path for node in nodes} != set(seen):
        return True
    tab.activity.clear()
    ms = max(1, int(timeout_s * 1000))
    waits: set[asyncio.Future[Any]] = {
        asyncio.ensure_future(invoke(node.frame, "changeAfter", *reading, ms))
        for node in nodes
        if (reading := seen[node.path]) is not None
    }
    activity = asyncio.ensure_future(tab.activity.wait())
    try:
        pending = waits | {activity}
        while pending:
            done, pending = await asyncio.wait(pending, timeout=timeout_s + 1, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                return False
            for task in done:
                if task is activity or task.cancelled() or task.exception() is not None or task.result() is not False:
                    return True  # an evaluation fails when its frame navigated or went away: that is a change
            if activity in pending and len(pending) == 1:
                return False
        return False
    finally:
        for task in (*waits, activity):
            if not task.done():
                task.cancel()
            task.add_done_callback(retrieved)


def _counters_changed(now: dict[str, Any], before: dict[str, Any]) -> bool:
    return bool(
        now["changes"] > before["changes"] or now.get("nav") != before.get("nav") or now.get("url") != before.get("url")
    )


async def unmet(run: RunBrowser, tab: Tab, expectation: Expectation, base: Baseline) -> list[str]:
    """The parts of ``expectation`` that do not hold now (empty when all hold)."""
    missing: list[str] = []
    url = tab.page.url
    if expectation.url_contains is not None and expectation.url_contains not in url:
        missing.append(f"the URL to contain {expectation.url_contains!r}")
    if expectation.url_matches is not None and not re.search(expectation.url_matches, url):
        missing.append(f"the URL to match {expectation.url_matches!r}")
    if expectation.dialog and tab.dialog_count <= base.dialogs:
        missing.append("a dialog to open")
    if expectation.download and len(tab.downloads) <= base.downloads:
        missing.append("a download to start")
    if expectation.new_tab and len(run.tabs) <= base.tabs:
        missing.append("a new tab to open")
    if tab.pending_dialog is not None:
        return missing  # the page is blocked by a native dialog; page checks would hang
    if expectation.text_visible is not None and not await _any_frame(tab, "hasText", expectation.text_visible):
        missing.append(f"the text {expectation.text_visible!r} to appear")
    if expectation.text_gone is not None and await _any_frame(tab, "hasText", expectation.text_gone):
        missing.append(f"the text {expectation.text_gone!r} to disappear")
    if expectation.element is not None and not await _element_state_holds(tab, expectation):
        e = expectation.element
        missing.append(f"{e.role or 'element'} {e.name!r} to be {e.state}")
    return missing


async def _any_frame(tab: Tab, method: str, *args: Any) -> bool:
    results = await asyncio.gather(
        *(invoke(node.frame, method, *args) for node in frame_tree(tab.page)), return_exceptions=True
    )
    return any(r is True for r in results)


async def _element_state_holds(tab: Tab, expectation: Expectation) -> bool:
    e = expectation.element
    assert e is not None
    results = await asyncio.gather(
        *(invoke(node.frame, "elementState", e.role, e.name) for node in frame_tree(tab.page)),
        return_exceptions=True,
    )
    states = [r for r in results if isinstance(r, dict)]
    count = sum(int(s["count"]) for s in states)
    checks = {
        "visible": count > 0,
        "hidden": count == 0,
        "enabled": any(s["enabled"] for s in states),
        "disabled": count > 0 and not any(s["enabled"] for s in states),
        "checked": any(s["checked"] for s in states),
        "unchecked": count > 0 and not any(s["checked"] for s in states),
    }
    return checks[e.state]


async def wait_for_expectation(
    run: RunBrowser, tab: Tab, expectation: Expectation, base: Baseline, timeout_s: float
) -> list[str]:
    """Wait until ``expectation`` holds; return what is still missing at the deadline (empty: it held)."""
    deadline = time.monotonic() + timeout_s
    while True:
        tab.activity.clear()
        missing = await unmet(run, tab, expectation, base)
        if not missing:
            return []
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return missing
        if tab.pending_dialog is not None:  # page scripts are blocked: only tab events can change things
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tab.activity.wait(), min(remaining, _MAX_PAUSE_S))
            continue
        main = tab.page.main_frame
        counters = await counters_of(main)
        since = int(counters["changes"]) if counters else 0
        await _pause(tab, main, since, min(remaining, _MAX_PAUSE_S))
