"""Re-resolve one target on the live page by its fingerprint (never by id), with the safety checks.

The element must be the single visible, enabled element whose fingerprint matches, and the point at its
centre must hit it (or its label) in its own frame and in every enclosing frame. Anything else refuses
with a :class:`TargetRefusedError` whose ``reason`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from finrpa.browser.errors import RefusalReason, TargetRefusedError
from finrpa.browser.frames import find_frame
from finrpa.browser.runtime import Tab
from finrpa.browser.script import invoke, page_model_js
from finrpa.browser.snapshot import Fingerprint

_FRAME_HIT = "(el, p) => window.__finrpa_pm ? window.__finrpa_pm.frameHit(el, p[0], p[1]) : null"
_TAKE = "t => window.__finrpa_pm.take(t)"
_MESSAGES: dict[str, str] = {
    "not_found": "No visible element matches {what} any more; observe the page again.",
    "ambiguous": "{n} visible elements match {what}; observe the page again and choose one.",
    "fingerprint_mismatch": "An element named {what} exists but its label, section or row differ from what "
    "was expected, so it was not touched; observe the page again.",
    "occluded": "{what} is covered by another element (an overlay or dialog); close it first.",
    "disabled": "{what} is disabled; complete the steps that enable it first.",
    "not_visible": "{what} is not visible; open the section that contains it first.",
    "detached": "{what} disappeared while it was being resolved; observe the page again.",
}


@dataclass
class ResolvedTarget:
    handle: ElementHandle
    frame: Frame
    fingerprint: Fingerprint
    counters: dict[str, Any]
    point: tuple[float, float]
    bbox: tuple[int, int, int, int]


def refuse(reason: RefusalReason, fingerprint: Fingerprint, candidates: int = 0) -> TargetRefusedError:
    what = f'{fingerprint.role} "{fingerprint.name}"'
    message = _MESSAGES[reason].format(what=what, n=candidates)
    return TargetRefusedError(message, reason=reason, candidates=candidates)


async def resolve_target(tab: Tab, fingerprint: Fingerprint) -> ResolvedTarget:
    """The live element for ``fingerprint`` in ``tab``, or a TargetRefusedError."""
    frame = find_frame(tab.page, fingerprint.frame)
    if frame is None:
        raise refuse("not_found", fingerprint)
    try:
        info = await invoke(frame, "resolve", fingerprint.model_dump(exclude={"frame"}))
    except PlaywrightError as exc:
        raise refuse("detached", fingerprint) from exc
    status = str(info.get("status"))
    if status != "ok":
        raise refuse(cast(RefusalReason, status), fingerprint, int(info.get("count", 0)))
    point = (float(info["point"][0]), float(info["point"][1]))
    if frame.parent_frame is not None and not await _visible_through_frames(frame, point):
        raise refuse("occluded", fingerprint)
    handle = (await frame.evaluate_handle(_TAKE, info["token"])).as_element()
    if handle is None:
        raise refuse("detached", fingerprint)
    x, y, w, h = info["bbox"]
    return ResolvedTarget(handle, frame, fingerprint, info["counters"], point, (x, y, w, h))


async def _visible_through_frames(frame: Frame, point: tuple[float, float]) -> bool:
    """True when the point is not covered in any enclosing frame (e.g. by a modal over an iframe)."""
    current, (x, y) = frame, point
    while current.parent_frame is not None:
        try:
            element = await current.frame_element()
            result = await element.evaluate(_FRAME_HIT, [x, y])
            if result is None:
                await current.parent_frame.evaluate(page_model_js())
                result = await element.evaluate(_FRAME_HIT, [x, y])
        except PlaywrightError:
            return False
        if not result or not result["hit"]:
            return False
        x, y = float(result["point"][0]), float(result["point"][1])
        current = current.parent_frame
    return True
