"""Skills: typed, verified, audited units of portal work (login, fill a form, paginate, extract, download…).

Public API::

    from finrpa.skills import BaseSkill, SkillResult, register_skill, get_skill, list_skills
"""

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

__all__ = [
    "SKILL_REGISTRY",
    "BaseSkill",
    "ErrorStrategy",
    "ReconcileOutcome",
    "ReconcileResult",
    "SideEffect",
    "SkillError",
    "SkillResult",
    "get_skill",
    "list_skills",
    "register_skill",
    "skill_catalogue",
]
