"""Skills as a library on the caller's own Playwright page, for automation engineers who keep their own scripts:

    from finrpa import skills
    result = await skills.execute("FormFillSkill", {"fields": {"开始日期": "2024-01-01"}, "submit": "查询"}, page=page)

Same verification and masking as in a run (targets re-resolved by fingerprint, values read back, postconditions
checked); no run, no database. Secrets are passed as ``SecretText`` values or resolved by the given resolver.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from finrpa.browser import Controller, RunBrowser, RunBrowserConfig
from finrpa.skills.base import SkillResult
from finrpa.skills.context import SecretResolver, SkillContext
from finrpa.skills.registry import get_skill


async def execute(
    skill_name: str,
    params: dict[str, Any],
    *,
    page: Page,
    secrets: SecretResolver | None = None,
    artifacts_dir: Path | None = None,
    portal_urls: list[str] | None = None,
    screenshots: bool = False,
    wait_s: float = 10.0,
) -> SkillResult:
    """Run one skill on ``page`` and return its result (expected portal failures are results, not exceptions)."""
    skill = get_skill(skill_name)()
    folder = artifacts_dir or Path(tempfile.mkdtemp(prefix="finrpa-skill-"))
    run_id = f"lib-{uuid.uuid4().hex[:12]}"
    config = RunBrowserConfig(run_id=run_id, downloads_dir=folder / "downloads", portal_urls=portal_urls or [])
    run = await RunBrowser.adopt(page, config)
    try:
        controller = Controller(run, screenshots=screenshots)
        context = SkillContext(
            run_id=run_id,
            step_id=skill_name,
            controller=controller,
            browser=run,
            artifacts_dir=folder,
            secrets=secrets,
            wait_s=wait_s,
        )
        return await skill.run(params, context)
    finally:
        await run.close()
