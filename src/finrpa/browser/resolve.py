"""Re-resolve one target on the live page by its fingerprint (never by id), with the safety checks.

The element must be the single visible, enabled element whose fingerprint matches, and the point at its
centre must hit it (or its label) in its own frame and in every enclosing frame. Anything else refuses
with a :class:`TargetRefusedError` whose ``reason`` says why. When the caller passes the frame state its
snapshot saw, a changed frame is refused first with :class:`StaleSnapshotError` — in the same round trip.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from playwright.async_api import ElementHandle, Frame
from playwright.async_api import Error as PlaywrightError

from finrpa.browser.errors import RefusalReason, StaleSnapshotError, TargetRefusedError
from finrpa.browser.frames import find_frame, on_frame_element
from finrpa.browser.runtime import Tab
from finrpa.browser.script import page_model_js
from finrpa.browser.snapshot import Fingerprint

_RESOLVE = (
    "([fp, expect, scroll]) => window.__finrpa_pm ? window.__finrpa_pm.resolveTake(fp, expect, scroll)"
    " : '__finrpa_missing__'"
)
_DETAILS = "() => window.__finrpa_pm.lastResolve()"
_FRAME_HIT = "(el, p) => window.__finrpa_pm ? window.__finrpa_pm.frameHit(el, p[0], p[1]) : null"
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


@dataclass(frozen=True)
class FrameState:
    """The frame state a snapshot saw: an action from it is stale when the live frame differs."""

    document: str
    epoch: int
    nav: int | None = None  # checked for the main frame only


@dataclass
class ResolvedTarget:
    handle: ElementHandle
    frame: Frame
    fingerprint: Fingerprint
    _details: dict[str, Any] | None = field(default=None, repr=False)

    async def details(self) -> dict[str, Any]:
        """Counters, centre point and bbox as they were at resolution (fetched on first use)."""
        if self._details is None:
            self._details = dict(await self.frame.evaluate(_DETAILS) or {})
        return self._details

    async def counters(self) -> dict[str, Any]:
        return dict((await self.details()).get("counters") or {})

    async def bbox(self) -> tuple[int, int, int, int] | None:
        box = (await self.details()).get("bbox")
        return (int(box[0]), int(box[1]), int(box[2]), int(box[3])) if box else None


def refuse(reason: RefusalReason, fingerprint: Fingerprint, candidates: int = 0) -> TargetRefusedError:
    what = f'{fingerprint.role} "{fingerprint.name}"'
    message = _MESSAGES[reason].format(what=what, n=candidates)
    return TargetRefusedError(message, reason=reason, candidates=candidates)


async def resolve_target(
    tab: Tab,
    fingerprint: Fingerprint,
    expect: FrameState | None = None,
    *,
    before_scrolling: Callable[[], Awaitable[None]] | None = None,
) -> ResolvedTarget:
    """The live element for ``fingerprint`` in ``tab``, or a TargetRefusedError / StaleSnapshotError.

    A target outside the viewport is scrolled into view. With ``before_scrolling``, resolving first leaves the
    page as it is and, only when the target must be scrolled to, awaits ``before_scrolling`` and resolves again
    (the controller's previous after-shot may still be in flight: the page must not move until it is taken)."""
    frame = find_frame(tab.page, fingerprint.frame)
    if frame is None:
        if expect is not None:
            raise StaleSnapshotError("The frame the snapshot saw is gone; observe the page again.")
        raise refuse("not_found", fingerprint)
    element, info = await _resolve_in(frame, fingerprint, expect, scroll=before_scrolling is None)
    if element is None and before_scrolling is not None and info.get("status") == "must_scroll":
        await before_scrolling()
        element, info = await _resolve_in(frame, fingerprint, expect, scroll=True)
    if element is None:
        status = str(info.get("status"))
        if status == "stale":
            raise StaleSnapshotError(_stale_message(info.get("counters") or {}, expect))
        raise refuse(cast(RefusalReason, status), fingerprint, int(info.get("count", 0)))
    target = ResolvedTarget(element, frame, fingerprint)
    if frame.parent_frame is not None and not await _visible_through_frames(target):
        raise refuse("occluded", fingerprint)
    return target


def _stale_message(counters: dict[str, Any], expect: FrameState | None) -> str:
    moved = expect is not None and (
        counters.get("doc") != expect.document or (expect.nav is not None and counters.get("nav") != expect.nav)
    )
    return "navigated" if moved else "changed"


async def _resolve_in(
    frame: Frame, fingerprint: Fingerprint, expect: FrameState | None, *, scroll: bool = True
) -> tuple[ElementHandle | None, dict[str, Any]]:
    args = [
        fingerprint.model_dump(exclude={"frame"}),
        {"doc": expect.document, "epoch": expect.epoch, "nav": expect.nav} if expect else None,
        scroll,
    ]
    try:
        handle = await frame.evaluate_handle(_RESOLVE, args)
        element = handle.as_element()
        if element is not None:
            return element, {}
        info = await handle.json_value()
        if info == "__finrpa_missing__":
            await frame.evaluate(page_model_js())
            return await _resolve_in(frame, fingerprint, expect, scroll=scroll)
    except PlaywrightError as exc:
        raise refuse("detached", fingerprint) from exc
    return None, dict(info) if isinstance(info, dict) else {"status": "detached"}


async def _visible_through_frames(target: ResolvedTarget) -> bool:
    """True when the target's centre is not covered in any enclosing frame (e.g. by a modal over an iframe). The
    first parent reads the centre from a same-origin frame itself; a cross-origin frame is asked for it."""
    current = target.frame
    x: float | None = None
    y: float | None = None
    while current.parent_frame is not None:
        try:
            result = await on_frame_element(current, _FRAME_HIT, [x, y])
            if result is None:
                await current.parent_frame.evaluate(page_model_js())
                result = await on_frame_element(current, _FRAME_HIT, [x, y])
            if result is not None and result["point"] is None:
                point = (await target.details())["point"]
                x, y = float(point[0]), float(point[1])
                continue
        except PlaywrightError:
            return False
        if not result or not result["hit"]:
            return False
        x, y = float(result["point"][0]), float(result["point"][1])
        current = current.parent_frame
    return True
