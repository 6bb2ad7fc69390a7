"""Screenshots with sensitive content masked at capture time.

Just before a capture every frame paints flat boxes over its sensitive content (password inputs, fields
marked sensitive, values that look like card or ID numbers and, optionally, such numbers in text); a frame
whose contents cannot be inspected is covered whole. The PNG is taken with the boxes in place and the boxes
are removed right after, so the unmasked pixels never reach the PNG. Captures use Chromium's fast PNG
encoder (larger files, several times quicker than the default).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib

from playwright.async_api import Error as PlaywrightError

from finrpa.browser.errors import ActionTimeoutError, BrowserError
from finrpa.browser.frames import FrameNode, frame_tree
from finrpa.browser.records import Screenshot
from finrpa.browser.runtime import Tab
from finrpa.browser.script import invoke

MASK_COLOR = "#3c3c3c"
_MASK_FRAME = "(el, colour) => window.__finrpa_pm.maskElement(el, colour)"


async def _mask(node: FrameNode, text_numbers: bool) -> int:
    try:
        return int(await invoke(node.frame, "maskSensitive", text_numbers, MASK_COLOR))
    except PlaywrightError:
        return -1


async def _mask_whole_frame(node: FrameNode) -> bool:
    try:
        element = await node.frame.frame_element()
        await element.evaluate(_MASK_FRAME, MASK_COLOR)
    except PlaywrightError:
        return False
    return True


async def _clear(node: FrameNode) -> None:
    with contextlib.suppress(PlaywrightError):
        await invoke(node.frame, "clearMasks")


async def _png(tab: Tab) -> bytes:
    if tab.cdp is None:
        tab.cdp = await tab.page.context.new_cdp_session(tab.page)
    shot = await tab.cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    return base64.b64decode(shot["data"])


async def capture(tab: Tab, *, mask_text_numbers: bool = True, timeout_ms: int = 10_000) -> Screenshot:
    """A PNG of the tab's viewport with sensitive content masked; raises BrowserError rather than
    produce an unmasked image."""
    nodes = frame_tree(tab.page)
    regions = -1  # unknown until painted: clear everywhere on failure
    try:
        regions = await _paint_masks(tab, nodes, mask_text_numbers)
        png = await asyncio.wait_for(_png(tab), timeout_ms / 1000)
    except (PlaywrightError, TimeoutError) as exc:
        raise ActionTimeoutError(f"The screenshot of tab {tab.tab_id} could not be taken ({exc}).") from exc
    finally:
        if regions != 0:
            await asyncio.gather(*(_clear(node) for node in nodes))
    return Screenshot.of(png, regions)


async def _paint_masks(tab: Tab, nodes: list[FrameNode], text_numbers: bool) -> int:
    counts = await asyncio.gather(*(_mask(node, text_numbers) for node in nodes))
    regions = 0
    for node, count in zip(nodes, counts, strict=True):
        if count >= 0:
            regions += count
            continue
        if node.parent is None or not await _mask_whole_frame(node):
            raise BrowserError(
                f"Tab {tab.tab_id} cannot be inspected for sensitive fields, so no screenshot was taken."
            )
        regions += 1
    return regions
