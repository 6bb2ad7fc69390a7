"""The four risk levels and the three side-effect classes, with the ordering the rules rely on."""

from __future__ import annotations

from enum import StrEnum


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def at_least(self, other: RiskLevel) -> RiskLevel:
        """The higher of the two levels."""
        return self if self.rank >= other.rank else other

    def at_most(self, other: RiskLevel) -> RiskLevel:
        """The lower of the two levels."""
        return self if self.rank <= other.rank else other

    @classmethod
    def highest(cls, levels: list[RiskLevel] | tuple[RiskLevel, ...]) -> RiskLevel:
        return max(levels, key=lambda level: level.rank, default=cls.LOW)


_RANKS = {RiskLevel.LOW: 0, RiskLevel.MEDIUM: 1, RiskLevel.HIGH: 2, RiskLevel.CRITICAL: 3}


class Effect(StrEnum):
    """What the action does to the portal: reads it, changes it, or changes it beyond undoing."""

    READ = "read"
    WRITE = "write"
    IRREVERSIBLE = "irreversible"

    @property
    def changes_state(self) -> bool:
        return self is not Effect.READ
