"""Build a :class:`PageSnapshot` of a tab: one page-model call per frame, assembled in Python."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError

from finrpa.browser.dom_clean import dom_hash
from finrpa.browser.frames import FrameNode, frame_tree, is_cross_origin, locate_offsets
from finrpa.browser.runtime import Tab
from finrpa.browser.screenshots import masks_removed
from finrpa.browser.script import invoke
from finrpa.browser.snapshot import (
    DialogInfo,
    ElementInfo,
    Fingerprint,
    FrameInfo,
    Heading,
    PageSnapshot,
    TableSummary,
)


@dataclass
class ObserveOptions:
    max_elements: int = 1500
    max_text_chars: int = 4000
    dom_digest: bool = True
    load_timeout_s: float = 10.0
    timeout_s: float = 30.0  # the whole observation, including waiting for the document to load


@dataclass
class _FrameResult:
    node: FrameNode
    data: dict[str, Any] | None


@dataclass
class _Assembly:
    elements: list[ElementInfo] = field(default_factory=list)
    tables: list[TableSummary] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    dialogs: list[DialogInfo] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    omitted: int = 0


async def build_snapshot(tab: Tab, options: ObserveOptions | None = None) -> PageSnapshot:
    """Observe ``tab`` now. While a native dialog is open the page cannot run scripts: the snapshot then
    carries only the dialog (accept or dismiss it to see the page again)."""
    options = options or ObserveOptions()
    started = time.perf_counter()
    if tab.pending_dialog is not None:
        return _dialog_only(tab, started)
    await tab.wait_parsed(options.load_timeout_s)  # a page still loading is observed once its DOM is parsed
    await masks_removed(tab)  # the last screenshot's masks are no part of the page
    nodes = frame_tree(tab.page)
    opts = {"maxElements": options.max_elements, "maxText": options.max_text_chars, "withHtml": options.dom_digest}
    results, _ = await asyncio.gather(
        asyncio.gather(*(_observe_frame(node, opts) for node in nodes)), locate_offsets(nodes)
    )
    return _assemble(tab, list(results), started)


@dataclass
class TablePage:
    """A table's rows and the page they were read from, taken in one call per frame."""

    snapshot: PageSnapshot
    table: dict[str, Any] | None  # caption, headers, rows, truncated; None when no frame shows the table
    frame: FrameNode | None  # the frame the table is in
    counters: dict[str, Any] | None  # that frame's counters as the rows were read


async def read_table_page(
    tab: Tab,
    table: tuple[str | None, list[str] | None],
    max_rows: int,
    roles: list[str],
    options: ObserveOptions | None = None,
) -> TablePage:
    """The rows of the table with this caption and headers and a snapshot limited to the elements of ``roles``,
    both read in the same call in each frame (the frame's page cannot change in between)."""
    options = options or ObserveOptions()
    started = time.perf_counter()
    await masks_removed(tab)
    nodes = frame_tree(tab.page)
    opts = {"maxElements": options.max_elements, "maxText": options.max_text_chars, "withHtml": False, "roles": roles}
    call = ("tablePage", table[0], table[1], max_rows)
    raws, _ = await asyncio.gather(
        asyncio.gather(*(_call_frame(node, call, opts) for node in nodes)), locate_offsets(nodes)
    )
    results = [_FrameResult(node, raw.get("snapshot") if raw else None) for node, raw in zip(nodes, raws, strict=True)]
    page = _assemble(tab, results, started).model_copy(update={"roles": roles})
    for node, raw in zip(nodes, raws, strict=True):
        if raw and raw.get("table"):
            counters = (raw.get("snapshot") or {}).get("counters")
            return TablePage(page, raw["table"], node, counters if isinstance(counters, dict) else None)
    return TablePage(page, None, None, None)


async def _observe_frame(node: FrameNode, opts: dict[str, Any]) -> _FrameResult:
    data = await _call_frame(node, ("snapshot",), opts)
    return _FrameResult(node, data)


async def _call_frame(node: FrameNode, call: tuple[Any, ...], opts: dict[str, Any]) -> dict[str, Any] | None:
    """One page-model call in a frame that answers with a JSON string (the options go last)."""
    frame_opts = dict(opts, withHtml=opts["withHtml"] and node.parent is None)
    try:
        raw = await invoke(node.frame, call[0], *call[1:], frame_opts)
    except PlaywrightError:
        raw = None
    data = json.loads(raw) if isinstance(raw, str) else None
    return data if isinstance(data, dict) else None


def _assemble(tab: Tab, results: list[_FrameResult], started: float) -> PageSnapshot:
    assembly = _Assembly()
    frames: list[FrameInfo] = []
    for result in results:
        frames.append(_frame_info(result))
        if result.data is not None:
            _add_frame(assembly, result)
    main = results[0].data or {}
    counters = main.get("counters") or {}
    html = main.get("html_digest_source")
    return PageSnapshot(
        snapshot_id="s" + secrets.token_hex(6),
        tab_id=tab.tab_id,
        navigation_id=f"{counters.get('doc', 'unknown')}.{counters.get('nav', 0)}",
        epoch=sum(f.epoch for f in frames),
        url=tab.page.url,
        title=str(main.get("title", "")),
        dom_digest=dom_hash(html) if isinstance(html, str) else None,
        frames=frames,
        elements=assembly.elements,
        omitted_elements=assembly.omitted,
        text="\n".join(t for t in assembly.texts if t),
        headings=assembly.headings,
        dialogs=_native_dialogs(tab) + assembly.dialogs,
        tables=assembly.tables,
        build_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def _frame_info(result: _FrameResult) -> FrameInfo:
    node = result.node
    counters = (result.data or {}).get("counters") or {}
    return FrameInfo(
        frame_id=node.frame_id,
        path=node.path,
        parent_id=node.parent.frame_id if node.parent else None,
        url=node.frame.url,
        name=node.frame.name,
        cross_origin=is_cross_origin(str(counters.get("url") or node.frame.url), node.frame.page.main_frame.url),
        document=str(counters.get("doc", "")),
        epoch=int(counters.get("epoch", 0)),
        changes=int(counters.get("changes", 0)),
        offset=node.offset,
        reachable=result.data is not None,
    )


def _add_frame(assembly: _Assembly, result: _FrameResult) -> None:
    data = result.data or {}
    node = result.node
    dx, dy = node.offset
    for raw in data.get("elements", []):
        ref = f"e{len(assembly.elements) + 1}"
        assembly.elements.append(_element(raw, ref, node, dx, dy))
    assembly.omitted += int(data.get("total_elements", 0)) - len(data.get("elements", []))
    for raw in data.get("tables", []):
        assembly.tables.append(TableSummary(table_id=f"t{len(assembly.tables) + 1}", frame_id=node.frame_id, **raw))
    assembly.headings += [Heading(frame_id=node.frame_id, **h) for h in data.get("headings", [])]
    assembly.dialogs += [
        DialogInfo(
            kind="modal" if d.get("modal") else "dialog",
            name=d.get("name", ""),
            text=d.get("text", ""),
            frame_id=node.frame_id,
        )
        for d in data.get("dialogs", [])
    ]
    assembly.texts.append(str(data.get("text", "")))


def _element(raw: dict[str, Any], ref: str, node: FrameNode, dx: float, dy: float) -> ElementInfo:
    x, y, w, h = raw.pop("bbox")
    fingerprint = Fingerprint(frame=node.path, **raw.pop("fingerprint"))
    return ElementInfo(
        ref=ref,
        bbox=(round(x + dx), round(y + dy), w, h),
        frame_id=node.frame_id,
        frame_path=node.path,
        fingerprint=fingerprint,
        **raw,
    )


def _native_dialogs(tab: Tab) -> list[DialogInfo]:
    dialog = tab.pending_dialog
    if dialog is None:
        return []
    kind = dialog.type if dialog.type in ("alert", "confirm", "prompt", "beforeunload") else "alert"
    return [DialogInfo(kind=kind, text=dialog.message[:500], native=True)]


def _dialog_only(tab: Tab, started: float) -> PageSnapshot:
    return PageSnapshot(
        snapshot_id="s" + secrets.token_hex(6),
        tab_id=tab.tab_id,
        navigation_id="dialog",
        epoch=0,
        url=tab.page.url,
        title="",
        frames=[],
        elements=[],
        dialogs=_native_dialogs(tab),
        build_ms=round((time.perf_counter() - started) * 1000, 2),
    )
