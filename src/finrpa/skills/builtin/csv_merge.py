"""CsvMergeSkill: merges CSV files that earlier steps of the run saved (e.g. statements of several accounts
downloaded in parallel branches) into one CSV in the run folder, with a column naming each row's source file.
It touches no portal."""

from __future__ import annotations

import csv
import hashlib
import io

from pydantic import BaseModel, Field

from finrpa.skills.base import ArtifactRef, BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SkillContext
from finrpa.skills.registry import register_skill


class CsvMergeParams(BaseModel):
    inputs: list[str] = Field(min_length=1, description="CSV files in the run folder, in the order to merge them.")
    output_path: str = Field(description="File name of the merged CSV, inside the run folder.")
    source_column: str = Field(default="source", description="Column naming each row's input file ('' for none).")


class MergeInputError(SkillError):
    code = "merge_input_missing"
    retryable = False


@register_skill
class CsvMergeSkill(BaseSkill[CsvMergeParams]):
    skill_name = "CsvMergeSkill"
    description = "Merge CSV files saved by earlier steps into one CSV (header union, source column)."
    params_model = CsvMergeParams
    error_strategy = ErrorStrategy.ABORT
    side_effect = SideEffect.READ

    async def execute(self, params: CsvMergeParams, context: SkillContext) -> SkillResult:
        header: list[str] = [params.source_column] if params.source_column else []
        rows: list[dict[str, str]] = []
        counts: dict[str, int] = {}
        for name in params.inputs:
            path = context.artifact_path(name)
            if not path.is_file():
                raise MergeInputError(f"{name!r} is not in the run folder; the step that saves it must run first.")
            with path.open(encoding="utf-8-sig", newline="") as handle:
                reader = csv.DictReader(handle)
                header.extend(column for column in reader.fieldnames or [] if column not in header)
                read = [dict(row) | ({params.source_column: name} if params.source_column else {}) for row in reader]
            counts[name] = len(read)
            rows.extend(read)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=header, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        content = buffer.getvalue().encode("utf-8")
        target = context.artifact_path(params.output_path)
        target.write_bytes(content)
        digest = hashlib.sha256(content).hexdigest()
        artifact = ArtifactRef(
            name=params.output_path, path=str(target), sha256=digest, size=len(content), media_type="text/csv"
        )
        data = {"file": params.output_path, "rows": len(rows), "rows_by_input": counts, "sha256": digest}
        return SkillResult.ok(data, artifacts=[artifact])
