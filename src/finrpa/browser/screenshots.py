"""Screenshots with sensitive content masked at capture time.

Just before a capture every frame paints flat boxes over its sensitive content (password inputs, fields
marked sensitive, values that look like card or ID numbers and, optionally, such numbers in text); a frame
whose contents cannot be inspected is covered whole. The PNG is taken with the boxes in place and the boxes
are removed right after, so the unmasked pixels never reach the PNG. Captures use Chromium's fast PNG
encoder (larger files, several times quicker than the default).

Every frame reports its change counters as the masks go up; the capture carries that page state
(:attr:`Capture.state`, by frame path). The counters only grow (changes, scroll events, navigations), so a
later reading of the same frames equal to it proves the page did not change from the moment the masks went
up, through the capture, until then: a later action can tell whether the page is provably still the one in
the picture and reuse it as its before-shot. Removing the masks is therefore not waited for; the next capture
of the tab waits for it before it paints its own masks (a late removal must never take the new masks down).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError

from finrpa.browser.errors import ActionTimeoutError, BrowserError
from finrpa.browser.frames import FrameNode, frame_tree, on_frame_element
from finrpa.browser.records import Screenshot
from finrpa.browser.runtime import Tab
from finrpa.browser.script import invoke
from finrpa.kit.tasks import retrieved

MASK_COLOR = "#3c3c3c"
_MASK_FRAME = "(el, colour) => window.__finrpa_pm.maskElement(el, colour)"


@dataclass(frozen=True)
class Capture:
    shot: Screenshot
    state: dict[str, dict[str, Any]] | None  # each frame's counters as the masks went up (None: one not readable)


async def _mask(node: FrameNode, text_numbers: bool) -> tuple[int, dict[str, Any] | None]:
    try:
        painted = await invoke(node.frame, "maskForShot", text_numbers, MASK_COLOR)
    except PlaywrightError:
        return -1, None
    if not isinstance(painted, dict):
        return -1, None
    counters = painted.get("counters")
    return int(painted["count"]), counters if isinstance(counters, dict) else None


async def _mask_whole_frame(node: FrameNode) -> bool:
    try:
        await on_frame_element(node.frame, _MASK_FRAME, MASK_COLOR)
    except PlaywrightError:
        return False
    return True


async def _clear(node: FrameNode) -> dict[str, Any] | None:
    with contextlib.suppress(PlaywrightError):
        counters = await invoke(node.frame, "clearMasks")
        return counters if isinstance(counters, dict) else None
    return None


async def _png(tab: Tab) -> bytes:
    shot = await (await tab.cdp()).send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    return base64.b64decode(shot["data"])


async def capture(tab: Tab, *, mask_text_numbers: bool = True, timeout_ms: int = 10_000) -> Screenshot:
    """A PNG of the tab's viewport with sensitive content masked; raises BrowserError rather than
    produce an unmasked image."""
    return (await capture_with_state(tab, mask_text_numbers=mask_text_numbers, timeout_ms=timeout_ms)).shot


async def capture_with_state(
    tab: Tab,
    *,
    mask_text_numbers: bool = True,
    timeout_ms: int = 10_000,
    on_painted: Callable[[dict[str, dict[str, Any]] | None], None] | None = None,
) -> Capture:
    """:func:`capture`, also returning each frame's counters as the masks went up (see the module).
    ``on_painted`` is called with them as soon as the masks are up, before the PNG is taken."""
    await masks_removed(tab)
    nodes = frame_tree(tab.page)
    regions = -1  # unknown until painted: clear everywhere on failure
    painted: dict[str, dict[str, Any]] | None = None
    try:
        regions, painted = await _paint_masks(tab, nodes, mask_text_numbers)
        if on_painted is not None:
            on_painted(painted)
        png = await asyncio.wait_for(_png(tab), timeout_ms / 1000)
    except (PlaywrightError, TimeoutError) as exc:
        raise ActionTimeoutError(f"The screenshot of tab {tab.tab_id} could not be taken ({exc}).") from exc
    finally:
        if regions != 0:
            tab.clearing = clear_later(nodes)
    return Capture(Screenshot.of(png, regions), painted)


def clear_later(nodes: list[FrameNode]) -> asyncio.Future[Any]:
    """Take the masks down in every frame, in the background. The tab may close first (its calls are then
    cancelled): the outcome is consumed here, so no unawaited failure is left to the event loop's log."""
    clearing: asyncio.Future[Any] = asyncio.gather(*(_clear(node) for node in nodes))
    clearing.add_done_callback(retrieved)
    return clearing


async def masks_removed(tab: Tab) -> None:
    """Return once the masks of the tab's last capture are down (usually long since). How the removal ended is
    not this caller's concern: a frame gone meanwhile has no masks left to remove."""
    clearing, tab.clearing = tab.clearing, None
    if clearing is not None:
        await asyncio.wait([clearing])


async def _paint_masks(
    tab: Tab, nodes: list[FrameNode], text_numbers: bool
) -> tuple[int, dict[str, dict[str, Any]] | None]:
    results = await asyncio.gather(*(_mask(node, text_numbers) for node in nodes))
    regions = 0
    states: dict[str, dict[str, Any]] | None = {}
    for node, (count, counters) in zip(nodes, results, strict=True):
        if states is not None and counters is not None:
            states[node.path] = counters
        else:
            states = None  # a frame whose state is unknown: the picture is never reused
        if count >= 0:
            regions += count
            continue
        if node.parent is None or not await _mask_whole_frame(node):
            raise BrowserError(
                f"Tab {tab.tab_id} cannot be inspected for sensitive fields, so no screenshot was taken."
            )
        regions += 1
    return regions, states
