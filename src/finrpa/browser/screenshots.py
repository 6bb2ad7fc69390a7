"""Screenshots with sensitive inputs masked at capture time.

Before each capture every frame marks its sensitive elements (password inputs, fields marked sensitive,
values that look like card or ID numbers and, optionally, such numbers in text); the capture then paints a
flat box over them (Playwright ``mask``), so the unmasked pixels never reach the PNG. A frame whose
contents cannot be inspected is masked as a whole.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from finrpa.browser.errors import ActionTimeoutError, BrowserError
from finrpa.browser.frames import FrameNode, frame_tree
from finrpa.browser.records import Screenshot
from finrpa.browser.runtime import Tab
from finrpa.browser.script import invoke

MASK_COLOR = "#3c3c3c"
MASK_SELECTOR = "[data-finrpa-mask]"
_MARK_FRAME = "el => el.setAttribute('data-finrpa-mask', '')"


async def _mark(node: FrameNode, text_numbers: bool) -> int:
    try:
        return int(await invoke(node.frame, "markSensitive", text_numbers))
    except PlaywrightError:
        return -1


async def _mask_whole_frame(node: FrameNode) -> bool:
    try:
        element = await node.frame.frame_element()
        await element.evaluate(_MARK_FRAME)
    except PlaywrightError:
        return False
    return True


async def capture(tab: Tab, *, mask_text_numbers: bool = True, timeout_ms: int = 10_000) -> Screenshot:
    """A PNG of the tab's viewport with sensitive content masked."""
    nodes = frame_tree(tab.page)
    counts = await asyncio.gather(*(_mark(node, mask_text_numbers) for node in nodes))
    masks: list[Locator] = []
    regions = 0
    for node, count in zip(nodes, counts, strict=True):
        if count < 0:
            if node.parent is None or not await _mask_whole_frame(node):
                raise BrowserError(
                    f"Tab {tab.tab_id} cannot be inspected for sensitive fields, so no screenshot was taken."
                )
            masks.append(node.parent.frame.locator(MASK_SELECTOR))
            regions += 1
        elif count > 0:
            masks.append(node.frame.locator(MASK_SELECTOR))
            regions += count
    try:
        png = await tab.page.screenshot(
            type="png", mask=masks, mask_color=MASK_COLOR, caret="hide", timeout=timeout_ms
        )
    except PlaywrightError as exc:
        raise ActionTimeoutError(
            f"The screenshot of tab {tab.tab_id} could not be taken ({exc.message.splitlines()[0]})."
        ) from exc
    return Screenshot.of(png, regions)
