"""FileDownloadSkill: triggers a portal export, saves the file in the run folder, and checks its size, type
(by magic bytes) and checksum before it counts as an artifact."""

from __future__ import annotations

import shutil
from typing import Literal

from pydantic import BaseModel, Field

from finrpa.browser import Download, Target
from finrpa.skills.base import ArtifactRef, BaseSkill, ErrorStrategy, SideEffect, SkillError, SkillResult
from finrpa.skills.context import SkillContext
from finrpa.skills.portal_state import raise_if_transient
from finrpa.skills.registry import register_skill
from finrpa.skills.resolve import CLICKABLE

EXPECTED_MEDIA = {
    "csv": ("text/csv", "text/plain"),
    "pdf": ("application/pdf",),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",),
    "zip": ("application/zip",),
}


class FileDownloadParams(BaseModel):
    trigger: str = Field(description="Label of the button or link that starts the download, e.g. 导出CSV.")
    path: str = Field(description="File name to save it as, inside the run folder.")
    expected_type: Literal["csv", "pdf", "xlsx", "zip", "any"] = "any"
    min_bytes: int = Field(default=1, ge=0)
    navigate_to: list[str] = Field(default_factory=list)


class DownloadCheckError(SkillError):
    code = "download_check_failed"
    retryable = True


@register_skill
class FileDownloadSkill(BaseSkill[FileDownloadParams]):
    skill_name = "FileDownloadSkill"
    description = "Trigger a portal download, store it in the run folder, verify size, type and SHA-256."
    params_model = FileDownloadParams
    error_strategy = ErrorStrategy.ABORT
    side_effect = SideEffect.READ
    required_capabilities = frozenset({"download"})
    timeout_s = 180.0

    async def execute(self, params: FileDownloadParams, context: SkillContext) -> SkillResult:
        if params.navigate_to:
            await context.page.navigate_menu(params.navigate_to)
        raise_if_transient(await context.page.observe())
        result = await context.page.act_on(
            params.trigger,
            CLICKABLE,
            lambda snapshot, element: Download(
                snapshot_id=snapshot.snapshot_id, target=Target(ref=element.ref, fingerprint=element.fingerprint)
            ),
        )
        downloaded = result.download
        if downloaded is None:
            raise DownloadCheckError(f"Clicking {params.trigger!r} did not produce a file.")
        if downloaded.size < params.min_bytes:
            raise DownloadCheckError(f"The downloaded file is {downloaded.size} bytes, below {params.min_bytes}.")
        allowed = EXPECTED_MEDIA.get(params.expected_type)
        if allowed is not None and downloaded.media_type not in allowed:
            raise DownloadCheckError(
                f"Expected a {params.expected_type} file but the portal sent {downloaded.media_type} "
                f"({downloaded.suggested_filename})."
            )
        target = context.artifact_path(params.path)
        shutil.copyfile(downloaded.path, target)
        artifact = ArtifactRef(
            name=params.path,
            path=str(target),
            sha256=downloaded.sha256,
            size=downloaded.size,
            media_type=downloaded.media_type,
        )
        data = {
            "file": params.path,
            "sha256": downloaded.sha256,
            "size": downloaded.size,
            "media_type": downloaded.media_type,
            "suggested_filename": downloaded.suggested_filename,
        }
        return SkillResult.ok(data, artifacts=[artifact], url=result.url_after)
