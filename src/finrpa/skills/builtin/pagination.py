"""PaginationSkill: walks a paged table until the last page (or max_pages), extracting each page and
stopping if the portal shows the same page twice."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, Field

from finrpa.browser import Click, Extract, PageSnapshot, PostconditionFailedError, Target
from finrpa.browser.snapshot import TableSummary
from finrpa.skills.base import BaseSkill, ErrorStrategy, SideEffect, SkillResult
from finrpa.skills.builtin.table_extract import TableNotFoundError, save_table
from finrpa.skills.builtin.tables import normalise_rows, read_all_rows, wait_for_table
from finrpa.skills.context import SkillContext
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import CLICKABLE, FieldNotFoundError, resolve_element


class PaginationParams(BaseModel):
    table: str | None = Field(default=None, description="Caption of the paged table.")
    headers: list[str] = Field(default_factory=list)
    next_label: str = "下一页"
    max_pages: int = Field(default=200, ge=1, le=10_000)
    format: Literal["json", "csv"] = "json"
    output_path: str | None = None
    normalize: bool = True


@register_skill
class PaginationSkill(BaseSkill[PaginationParams]):
    skill_name = "PaginationSkill"
    description = "Walk a paged table to the end, extracting every page; stops on a repeated page."
    params_model = PaginationParams
    error_strategy = ErrorStrategy.SKIP
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"click", "extract"})
    timeout_s = 600.0

    async def execute(self, params: PaginationParams, context: SkillContext) -> SkillResult:
        headers: list[str] = []
        rows: list[list[str]] = []
        seen: set[str] = set()
        pages, stop_reason = 0, "last page"
        found: TableSummary | None = None  # the table as the first page showed it
        while True:
            page = await _next_page(context, found) if found is not None else None
            if page is not None:
                snapshot, (headers, page_rows) = page
            else:
                snapshot, table = await wait_for_table(context, params.table, params.headers)
                if table is None:
                    raise TableNotFoundError(f"No table {params.table or params.headers!r} on {snapshot.url}.")
                found = found or table
                headers, page_rows = await read_all_rows(context, snapshot, table)
            digest = hashlib.sha256(json.dumps(page_rows, ensure_ascii=False).encode()).hexdigest()
            if digest in seen:
                stop_reason = "the portal showed a page again"
                break
            seen.add(digest)
            rows.extend(page_rows)
            pages += 1
            if pages >= params.max_pages:
                stop_reason = f"max_pages ({params.max_pages}) reached"
                break
            try:
                following = resolve_element(snapshot, params.next_label, CLICKABLE)
            except FieldNotFoundError:
                break
            await context.page.act_on(
                params.next_label,
                CLICKABLE,
                lambda snap, element: Click(
                    snapshot_id=snap.snapshot_id, target=Target(ref=element.ref, fingerprint=element.fingerprint)
                ),
                located=(snapshot, following),
            )
        if params.normalize:
            rows = normalise_rows(rows)
        artifact = save_table(context, headers, rows, params.format, params.output_path)
        data = {"headers": headers, "row_count": len(rows), "pages": pages, "stopped": stop_reason}
        return SkillResult.ok(data, artifacts=[artifact] if artifact else [], url=snapshot.url)


async def _next_page(
    context: SkillContext, table: TableSummary
) -> tuple[PageSnapshot, tuple[list[str], list[list[str]]]] | None:
    """A following page's rows and the links on it, read in one call: the table the first page showed (same caption
    and headers) and a snapshot of the clickable elements, enough to find the next-page link. None when the table is
    not there (yet): the caller then waits for it by observing the whole page."""
    try:
        result = await context.controller.execute(
            Extract(
                what="table",
                caption=table.caption,
                headers=table.headers,
                max_rows=10_000,
                observe_roles=sorted(CLICKABLE),
            )
        )
    except PostconditionFailedError:
        return None
    assert result.snapshot is not None and result.table is not None
    return result.snapshot, (result.table.headers, [list(row) for row in result.table.rows])
