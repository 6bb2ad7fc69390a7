"""Skills: typed, verified, audited units of portal work (login, fill a form, paginate, extract, download…).

Public API::

    from finrpa.skills import BaseSkill, SkillResult, register_skill, get_skill, list_skills
"""

from typing import Any

from finrpa.skills.base import (
    BaseSkill,
    ErrorStrategy,
    ReconcileOutcome,
    ReconcileResult,
    SideEffect,
    SkillError,
    SkillResult,
)
from finrpa.skills.registry import SKILL_REGISTRY, get_skill, list_skills, register_skill, skill_catalogue


async def execute(skill_name: str, params: dict[str, Any], **options: Any) -> SkillResult:
    """Run one skill on the caller's own Playwright page (``page=...``); see :mod:`finrpa.skills.library`."""
    from finrpa.skills.library import execute as run_on_page

    return await run_on_page(skill_name, params, **options)


__all__ = [
    "SKILL_REGISTRY",
    "BaseSkill",
    "ErrorStrategy",
    "ReconcileOutcome",
    "ReconcileResult",
    "SideEffect",
    "SkillError",
    "SkillResult",
    "execute",
    "get_skill",
    "list_skills",
    "register_skill",
    "skill_catalogue",
]
