"""Measure :class:`~finrpa.llm.router.PageFeatures` on a live Playwright page, across every frame.

Elements and form fields are counted in every frame (same- and cross-origin) and inside open shadow roots;
the iframe depth is the deepest frame's distance from the main frame. Dynamic content is fetch/XHR seen by
the page's Resource Timing entries, plus fetch/XHR/WebSocket traffic seen by a
:class:`DynamicContentMonitor` attached when the page was opened.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Request, WebSocket

from finrpa.llm.router import PageFeatures

_COUNT_SCRIPT = """() => {
  const FIELD = 'input:not([type=hidden]), select, textarea, [contenteditable=""], [contenteditable="true"], '
    + '[role=textbox], [role=combobox], [role=listbox], [role=checkbox], [role=radio], [role=spinbutton]';
  let elements = 0, fields = 0, shadow = false;
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      elements += 1;
      if (el.matches(FIELD)) fields += 1;
      if (el.shadowRoot) { shadow = true; visit(el.shadowRoot); }
    }
  };
  visit(document);
  const ajax = performance.getEntriesByType('resource')
    .some((entry) => entry.initiatorType === 'xmlhttprequest' || entry.initiatorType === 'fetch');
  return {elements, fields, shadow, ajax};
}"""


@dataclass(frozen=True)
class _FrameCounts:
    elements: int
    fields: int
    shadow: bool
    ajax: bool


class DynamicContentMonitor:
    """Watches a page for fetch/XHR requests and WebSockets from the moment it is attached."""

    def __init__(self) -> None:
        self.ajax_requests = 0
        self.websockets = 0

    def attach(self, page: Page) -> DynamicContentMonitor:
        page.on("request", self._on_request)
        page.on("websocket", self._on_websocket)
        return self

    @property
    def seen(self) -> bool:
        return self.ajax_requests > 0 or self.websockets > 0

    def _on_request(self, request: Request) -> None:
        if request.resource_type in ("xhr", "fetch"):
            self.ajax_requests += 1

    def _on_websocket(self, _socket: WebSocket) -> None:
        self.websockets += 1


async def measure_page_features(page: Page, monitor: DynamicContentMonitor | None = None) -> PageFeatures:
    """The features of the page as it is now; frames that vanish while measuring are skipped."""
    elements = fields = depth = 0
    shadow = ajax = False
    for frame in page.frames:
        counts = await _count(frame)
        if counts is None:
            continue
        elements += counts.elements
        fields += counts.fields
        shadow = shadow or counts.shadow
        ajax = ajax or counts.ajax
        depth = max(depth, _depth(frame))
    return PageFeatures(
        element_count=elements,
        iframe_depth=depth,
        has_shadow_dom=shadow,
        form_field_count=fields,
        dynamic_content=ajax or (monitor is not None and monitor.seen),
    )


async def _count(frame: Frame) -> _FrameCounts | None:
    if frame.is_detached():
        return None
    try:
        raw = await frame.evaluate(_COUNT_SCRIPT)
    except PlaywrightError:
        return None  # detached or navigating mid-measurement
    return _FrameCounts(int(raw["elements"]), int(raw["fields"]), bool(raw["shadow"]), bool(raw["ajax"]))


def _depth(frame: Frame) -> int:
    depth = 0
    parent = frame.parent_frame
    while parent is not None:
        depth += 1
        parent = parent.parent_frame
    return depth
