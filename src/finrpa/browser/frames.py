"""The frame tree of a tab: stable paths for frames and their offsets in the tab's viewport."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

# Each child frame's <iframe> element, asked for once: a frame keeps its element for its lifetime (an iframe that is
# moved or replaced holds a new frame), and the entry goes with the frame.
_ELEMENTS: weakref.WeakKeyDictionary[Frame, ElementHandle] = weakref.WeakKeyDictionary()


@dataclass
class FrameNode:
    frame_id: str
    path: str
    frame: Frame
    parent: FrameNode | None
    cross_origin: bool
    offset: tuple[float, float] = (0.0, 0.0)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def frame_tree(page: Page) -> list[FrameNode]:
    """Frames in breadth-first order; the main frame is ``f0`` with path ``main``, a child frame's path
    adds its position among its parent's frames (``main/0/1``). Positions, not names: a frame's name can
    arrive late or be changed by its own script."""
    main = page.main_frame
    root = FrameNode("f0", "main", main, None, False)
    nodes = [root]
    queue = [root]
    while queue:
        parent = queue.pop(0)
        children = [child for child in parent.frame.child_frames if not child.is_detached()]
        for index, child in enumerate(children):
            node = FrameNode(
                f"f{len(nodes)}", f"{parent.path}/{index}", child, parent, is_cross_origin(child.url, main.url)
            )
            nodes.append(node)
            queue.append(node)
    return nodes


def is_cross_origin(url: str, main_url: str) -> bool:
    return _origin(url) != _origin(main_url)


async def locate_offsets(nodes: list[FrameNode]) -> None:
    """Fill each frame's content-box offset in the main viewport (parents before children)."""
    by_depth: dict[int, list[FrameNode]] = {}
    for node in nodes[1:]:
        by_depth.setdefault(node.path.count("/"), []).append(node)
    for depth in sorted(by_depth):
        await asyncio.gather(*(_offset_of(node) for node in by_depth[depth]))


async def on_frame_element(frame: Frame, expression: str, arg: Any = None) -> Any:
    """Evaluate ``expression`` on the <iframe> element that holds ``frame``, in its parent frame. The element is
    asked for once per frame; one gone stale meanwhile (its parent's document replaced in place) is asked for again."""
    cached = _ELEMENTS.get(frame)
    if cached is not None:
        try:
            return await cached.evaluate(expression, arg)
        except PlaywrightError:
            _ELEMENTS.pop(frame, None)
    element = _ELEMENTS[frame] = await frame.frame_element()
    return await element.evaluate(expression, arg)


async def _offset_of(node: FrameNode) -> None:
    assert node.parent is not None
    try:
        dx, dy = await on_frame_element(
            node.frame,
            "el => { const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);"
            " return [r.left + el.clientLeft + parseFloat(cs.paddingLeft),"
            " r.top + el.clientTop + parseFloat(cs.paddingTop)]; }",
        )
    except PlaywrightError:
        dx, dy = 0.0, 0.0
    px, py = node.parent.offset
    node.offset = (px + float(dx), py + float(dy))


def find_frame(page: Page, path: str) -> Frame | None:
    """The live frame at ``path`` (as produced by :func:`frame_tree`), or None."""
    for node in frame_tree(page):
        if node.path == path:
            return node.frame
    return None
