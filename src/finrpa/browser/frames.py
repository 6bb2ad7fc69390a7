"""The frame tree of a tab: stable paths for frames and their offsets in the tab's viewport."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page


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


async def _offset_of(node: FrameNode) -> None:
    assert node.parent is not None
    try:
        element = await node.frame.frame_element()
        dx, dy = await element.evaluate(
            "el => { const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);"
            " return [r.left + el.clientLeft + parseFloat(cs.paddingLeft),"
            " r.top + el.clientTop + parseFloat(cs.paddingTop)]; }"
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
