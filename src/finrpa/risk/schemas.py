"""The shapes risk detection reads and returns: a proposed action in context, hits, and the decision."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from finrpa.risk.categories import Category
from finrpa.risk.levels import Effect, RiskLevel

JsonScalar = str | int | float | bool | None
ActionValue = JsonScalar | list[JsonScalar]


class Location(StrEnum):
    """Where in the action's context a hit was found. The first three are the action's own text."""

    TARGET_TEXT = "target_text"
    VALUES = "values"
    PAGE_TITLE = "page_title"
    PAGE_TEXT = "page_text"

    @property
    def is_action_text(self) -> bool:
        return self is not Location.PAGE_TEXT


class RiskInput(BaseModel):
    """One proposed action with what the agent saw (the ``finrpa risk assess`` JSON-lines record)."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    domain: str = "common"
    page_title: str = ""
    page_text: str = ""
    action_type: str = ""
    target_text: str = ""
    values: dict[str, ActionValue] = Field(default_factory=dict)
    effect: Effect = Effect.READ


class RiskHit(BaseModel):
    """One thing stage 1 recognised. Identifiers are masked: ``term`` never holds a full card or ID number."""

    model_config = ConfigDict(frozen=True)

    category: Category
    level: RiskLevel
    location: Location
    term: str
    confidence: float = 1.0
    amount_cny: Decimal | None = None
    count: int | None = None


class Stage1Result(BaseModel):
    """Stage 1's verdict. ``floor`` is the level that rules (not keywords alone) fixed and stage 2 cannot lower."""

    hits: list[RiskHit]
    level: RiskLevel
    floor: RiskLevel
    effect: Effect
    reasons: list[str]
    injection_detected: bool = False

    @property
    def triggered(self) -> bool:
        """Whether stage 2 should look: stage 1 found something that raised the level."""
        return self.level.rank >= RiskLevel.MEDIUM.rank


class Stage2Result(BaseModel):
    """The analyst's answer (or its failure), before the bounds of :func:`finrpa.risk.stage2.bound_level`."""

    level: RiskLevel | None = None
    reason: str = ""
    failed: bool = False
    analyst: str = ""


class RiskDecision(BaseModel):
    """The outcome of risk detection for one action."""

    id: str | None = None
    final_level: RiskLevel
    requires_approval: bool
    reasons: list[str]
    stage1_hits: list[RiskHit]
    stage2_result: Stage2Result | None = None
