"""TableExtractSkill: finds a table by caption or headers and extracts its rows to JSON or CSV."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, Field

from finrpa.skills.base import ArtifactRef, BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.builtin.tables import normalise_rows, read_all_rows, to_csv, to_json, wait_for_table
from finrpa.skills.context import SkillContext
from finrpa.skills.registry import register_skill


class TableExtractParams(BaseModel):
    table: str | None = Field(default=None, description="The table's caption, e.g. 交易明细.")
    headers: list[str] = Field(default_factory=list, description="Headers the table must have.")
    format: Literal["json", "csv"] = "json"
    output_path: str | None = Field(default=None, description="File name in the run folder.")
    normalize: bool = True


class TableNotFoundError(SkillError):
    code = "table_not_found"
    retryable = True


def save_table(
    context: SkillContext, headers: list[str], rows: list[list[str]], fmt: str, output_path: str | None
) -> ArtifactRef | None:
    if output_path is None:
        return None
    body = to_csv(headers, rows) if fmt == "csv" else to_json(headers, rows)
    path = context.artifact_path(output_path)
    path.write_bytes(body)
    media = "text/csv" if fmt == "csv" else "application/json"
    return ArtifactRef(
        name=output_path, path=str(path), sha256=hashlib.sha256(body).hexdigest(), size=len(body), media_type=media
    )


@register_skill
class TableExtractSkill(BaseSkill[TableExtractParams]):
    skill_name = "TableExtractSkill"
    description = "Extract a table (by caption or headers) to JSON or CSV, normalising amounts and dates."
    params_model = TableExtractParams
    error_strategy = ErrorStrategy.RETRY
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"extract"})

    async def execute(self, params: TableExtractParams, context: SkillContext) -> SkillResult:
        snapshot, table = await wait_for_table(context, params.table, params.headers)
        if table is None:
            raise TableNotFoundError(f"No table {params.table or params.headers!r} on {snapshot.url}.")
        headers, rows = await read_all_rows(context, snapshot, table)
        if params.normalize:
            rows = normalise_rows(rows)
        artifact = save_table(context, headers, rows, params.format, params.output_path)
        data = {"headers": headers, "row_count": len(rows)}
        if artifact is None:
            data["rows"] = rows
        return SkillResult.ok(data, artifacts=[artifact] if artifact else [], url=snapshot.url)
