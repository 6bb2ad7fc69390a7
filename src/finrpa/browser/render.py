"""A compact text form of a snapshot for an LLM, within a token budget.

Token estimate: each CJK character counts as one token, everything else as one token per four characters
(rounded up per line). The budget is capped at :data:`HARD_CAP_TOKENS`; what does not fit is dropped with
an explicit "… N elements omitted" note, never silently.
"""

from __future__ import annotations

import math
import re

from finrpa.browser.snapshot import ElementInfo, PageSnapshot, TableSummary

HARD_CAP_TOKENS = 8000
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """Rough token count that holds for Chinese and English text alike."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def element_line(element: ElementInfo) -> str:
    """``[e12] textbox "开始日期" value="2024-01-01" required`` and similar."""
    parts = [f"[{element.ref}] {element.role}", _quote(element.name)]
    if element.type and element.type not in ("text", "submit", "button"):
        parts.append(f"type={element.type}")
    if element.value not in (None, ""):
        parts.append(f"value={_quote(element.value or '')}")
    if element.options is not None:
        shown = element.options[:12]
        more = f" +{len(element.options) - 12}" if len(element.options) > 12 else ""
        parts.append("options=[" + ", ".join(shown) + more + "]")
    if element.date:
        parts.append(f"date={element.date}")
    flags = [
        ("checked", element.checked is True),
        ("unchecked", element.checked is False),
        ("disabled", element.disabled),
        ("readonly", element.readonly),
        ("required", element.required),
        ("expanded", element.expanded is True),
        ("collapsed", element.expanded is False),
        ("sensitive", element.sensitive),
    ]
    parts += [flag for flag, on in flags if on]
    if element.frame_path != "main":
        parts.append(f"frame={element.frame_path}")
    if element.shadow_path:
        parts.append("shadow=" + ">".join(element.shadow_path))
    if element.fingerprint.container:
        parts.append(f"in {_quote(element.fingerprint.container)}")
    if element.fingerprint.count > 1 and element.fingerprint.row:  # tells same-named row buttons apart
        parts.append(f"row={_quote(element.fingerprint.row[:48])}")
    return " ".join(parts)


def _table_line(table: TableSummary) -> str:
    headers = ", ".join(table.headers[:12])
    return f"[{table.table_id}] table {_quote(table.caption)} rows={table.row_count} columns=[{headers}]"


def _header(snapshot: PageSnapshot) -> list[str]:
    lines = [f"page {_quote(snapshot.title)} url={snapshot.url.split('?', 1)[0]} snapshot={snapshot.snapshot_id}"]
    for dialog in snapshot.dialogs:
        native = "native " if dialog.native else ""
        lines.append(f"! {native}{dialog.kind} {_quote(dialog.name)}: {dialog.text[:200]}")
    lines += [f"{'#' * h.level} {h.text}" for h in snapshot.headings[:12]]
    lines += [_table_line(t) for t in snapshot.tables[:8]]
    return lines


def render_snapshot(snapshot: PageSnapshot, token_budget: int = 2000) -> str:
    """One line per element plus headings, dialogs, tables and a text excerpt, within ``token_budget``."""
    budget = max(200, min(token_budget, HARD_CAP_TOKENS))
    lines = _header(snapshot)
    used = sum(estimate_tokens(line) + 1 for line in lines)
    shown = 0
    element_lines = [element_line(e) for e in snapshot.elements if e.visible or e.role in ("checkbox", "radio")]
    reserve = 20  # room for the truncation note
    for line in element_lines:
        cost = estimate_tokens(line) + 1
        if used + cost + reserve > budget:
            break
        lines.append(line)
        used += cost
        shown += 1
    omitted = len(element_lines) - shown + snapshot.omitted_elements
    if omitted:
        lines.append(f"… {omitted} elements omitted")
        used += 8
    excerpt = _text_excerpt(snapshot.text, budget - used - reserve)
    if excerpt:
        lines.append("text: " + excerpt)
    return "\n".join(lines)


def _text_excerpt(text: str, tokens: int) -> str:
    if tokens < 30 or not text:
        return ""
    flat = " ".join(text.split())
    low, high = 0, len(flat)
    while low < high:  # longest prefix within the remaining tokens
        mid = (low + high + 1) // 2
        if estimate_tokens(flat[:mid]) <= tokens:
            low = mid
        else:
            high = mid - 1
    return flat[:low] + ("…" if low < len(flat) else "")
