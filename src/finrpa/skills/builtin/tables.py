"""Tables on portal pages: find one by caption or headers, read its rows, normalise amounts and dates, and
write them as CSV or JSON. Shared by TableExtractSkill and PaginationSkill."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from dataclasses import dataclass

from finrpa.browser import Extract, PageSnapshot
from finrpa.browser.snapshot import TableSummary
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import raise_if_transient
from finrpa.skills.resolve import normalise, synonyms_of

_AMOUNT = re.compile(r"^[¥￥$€]?\s*[+-]?\d{1,3}(,\d{3})*(\.\d+)?$|^[+-]?\d+(\.\d+)?$")
_CN_DATE = re.compile(r"^(\d{4})[年/.\-](\d{1,2})[月/.\-](\d{1,2})日?$")


@dataclass
class TableRows:
    headers: list[str]
    rows: list[list[str]]


def find_table(snapshot: PageSnapshot, caption: str | None, headers: list[str]) -> TableSummary | None:
    """The table whose caption means ``caption``, else the one holding all ``headers``."""
    if caption:
        wanted = {normalise(variant) for variant in synonyms_of(caption)}
        for table in snapshot.tables:
            if normalise(table.caption) in wanted:
                return table
    if headers:
        for table in snapshot.tables:
            have = {normalise(header) for header in table.headers}
            if all(any(normalise(v) in have for v in synonyms_of(header)) for header in headers):
                return table
    if caption:
        for table in snapshot.tables:
            if any(normalise(variant) in normalise(table.caption) for variant in synonyms_of(caption)):
                return table
    return None


async def wait_for_table(
    context: SkillContext, caption: str | None, headers: list[str]
) -> tuple[PageSnapshot, TableSummary | None]:
    """Observe until the table is on the page (portals render results after loading) or ``wait_s`` ends."""
    deadline = time.monotonic() + context.wait_s
    while True:
        snapshot = await context.page.observe()
        raise_if_transient(snapshot)
        table = find_table(snapshot, caption, headers)
        if table is not None or time.monotonic() >= deadline:
            return snapshot, table
        await context.page.pause(snapshot, deadline)


async def read_all_rows(
    context: SkillContext, snapshot: PageSnapshot, table: TableSummary
) -> tuple[list[str], list[list[str]]]:
    result = await context.controller.execute(
        Extract(snapshot_id=snapshot.snapshot_id, what="table", table_id=table.table_id, max_rows=10_000)
    )
    if result.table is None:
        return table.headers, []
    return result.table.headers, [list(row) for row in result.table.rows]


def normalise_cell(value: str) -> str:
    """Amounts lose separators and currency signs; dates become YYYY-MM-DD; everything else is trimmed."""
    text = value.strip()
    if _AMOUNT.match(text):
        return text.lstrip("¥￥$€").replace(",", "").strip()
    date = _CN_DATE.match(text)
    if date:
        year, month, day = (int(part) for part in date.groups())
        return f"{year:04d}-{month:02d}-{day:02d}"
    return text


def normalise_rows(rows: list[list[str]]) -> list[list[str]]:
    return [[normalise_cell(cell) for cell in row] for row in rows]


def to_csv(headers: list[str], rows: list[list[str]]) -> bytes:
    """UTF-8 with a byte-order mark, the form Excel in China opens correctly."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def to_json(headers: list[str], rows: list[list[str]]) -> bytes:
    records = [dict(zip(headers, row, strict=False)) for row in rows]
    return json.dumps(records, ensure_ascii=False, indent=1).encode("utf-8")
