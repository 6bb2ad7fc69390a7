"""The skill registry: built-in skills register with ``@register_skill``; others through entry points."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, TypeVar

from finrpa.exceptions import NotFoundError, ValidationFailedError
from finrpa.skills.base import BaseSkill

ENTRY_POINT_GROUP = "finrpa.skills"

SKILL_REGISTRY: dict[str, type[BaseSkill[Any]]] = {}

S = TypeVar("S", bound=type[BaseSkill[Any]])

_discovered = False


def register_skill(cls: S) -> S:
    """Class decorator: add a skill to the registry under its ``skill_name``."""
    name = getattr(cls, "skill_name", None)
    if not name:
        raise ValidationFailedError(f"{cls.__qualname__} must set skill_name before it can be registered.")
    existing = SKILL_REGISTRY.get(name)
    if existing is not None and existing is not cls:
        raise ValidationFailedError(
            f"Skill {name!r} is already registered by {existing.__module__}.{existing.__qualname__}."
        )
    SKILL_REGISTRY[name] = cls
    return cls


def _discover() -> None:
    """Import the built-in skills and every ``finrpa.skills`` entry point once."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    import finrpa.skills.builtin  # noqa: F401  (registers the built-in skills)

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        loaded = entry.load()
        if isinstance(loaded, type) and issubclass(loaded, BaseSkill):
            register_skill(loaded)


def get_skill(name: str) -> type[BaseSkill[Any]]:
    _discover()
    try:
        return SKILL_REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(SKILL_REGISTRY))
        raise NotFoundError(f"No skill named {name!r}. Known skills: {known}.") from None


def list_skills() -> list[type[BaseSkill[Any]]]:
    _discover()
    return [SKILL_REGISTRY[name] for name in sorted(SKILL_REGISTRY)]


def skill_catalogue() -> list[dict[str, Any]]:
    return [skill.describe() for skill in list_skills()]
