"""Evidence screenshots for the hand-written baselines, as a Playwright script that keeps evidence takes them: one
PNG of the page before each action (the picture of what the previous action left, and of what this one finds) and one
after the last.

    async with taking_evidence(page, folder) as evidence:
        await run(page, base_url, params)
    evidence.taken  # PNGs written to folder

The scripts stay as they are: while a run takes evidence, the Playwright actions they use (``Page.goto``,
``Locator.click`` / ``fill`` / ``select_option`` / ``check`` / ``uncheck`` / ``set_input_files`` / ``press`` /
``press_sequentially``, ``Keyboard.press``) are each preceded by a capture of the run's page. Reads (``inner_text``,
``wait_for``, ``count``) take none. Captures use the same protocol call as FinRPA's (Chromium's fast PNG encoder) and
are written to the run's folder, so the comparison prices what FinRPA adds to a screenshot (masks, records), not two
ways of encoding one.
"""

from __future__ import annotations

import base64
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import CDPSession, Keyboard, Locator, Page
from playwright.async_api import Error as PlaywrightError

ACTIONS: tuple[tuple[type, str], ...] = (
    (Page, "goto"),
    (Locator, "click"),
    (Locator, "fill"),
    (Locator, "select_option"),
    (Locator, "check"),
    (Locator, "uncheck"),
    (Locator, "set_input_files"),
    (Locator, "press"),
    (Locator, "press_sequentially"),
    (Keyboard, "press"),
)


_ATTEMPTS = 3
_NEXT_FRAME = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


@dataclass
class Evidence:
    page: Page
    cdp: CDPSession
    folder: Path
    taken: int = 0

    async def capture(self) -> None:
        for attempt in range(_ATTEMPTS):
            try:
                shot = await self.cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
                break
            except PlaywrightError:  # "Unable to capture screenshot": a page just loaded, before its first frame
                if attempt == _ATTEMPTS - 1:
                    raise
                await self.page.evaluate(_NEXT_FRAME)
        (self.folder / f"evidence-{self.taken:03d}.png").write_bytes(base64.b64decode(shot["data"]))
        self.taken += 1


_current: ContextVar[Evidence | None] = ContextVar("baseline_evidence", default=None)


def _capturing_first(action: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(action)
    async def capturing(self: Any, *args: Any, **kwargs: Any) -> Any:
        evidence = _current.get()
        if evidence is not None:
            await evidence.capture()
        return await action(self, *args, **kwargs)

    capturing.captures_evidence = True  # type: ignore[attr-defined]
    return capturing


def _install() -> None:
    """Wrap each action once per process; outside a ``taking_evidence`` block they behave exactly as before."""
    for owner, name in ACTIONS:
        action = getattr(owner, name)
        if not getattr(action, "captures_evidence", False):
            setattr(owner, name, _capturing_first(action))


@asynccontextmanager
async def taking_evidence(page: Page, folder: Path) -> AsyncIterator[Evidence]:
    """Capture ``page`` before each action run inside the block (in this task and the tasks it starts), and once
    more when the block ends without an error."""
    _install()
    evidence = Evidence(page, await page.context.new_cdp_session(page), folder)
    token = _current.set(evidence)
    try:
        yield evidence
        await evidence.capture()
    finally:
        _current.reset(token)
        with contextlib.suppress(PlaywrightError):  # the page may be closed by now; the run's own error matters
            await evidence.cdp.detach()
