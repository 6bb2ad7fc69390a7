"""Stage 2 of risk detection: an analyst (an LLM) reads the context of a stage-1 hit and proposes a level.

The analyst proposes; :func:`bound_level` disposes. It may lower a level only for a read-only action (e.g. a
"转账记录查询" page is a query, not a transfer), never below a rule's floor and never when the page tried to talk
the detector down; for write and irreversible actions it may only raise. If the analyst fails, medium becomes
high (the conservative upgrade); without an analyst stage 1 decides alone.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from finrpa.exceptions import ExternalServiceError
from finrpa.risk.levels import RiskLevel
from finrpa.risk.schemas import RiskInput, Stage1Result, Stage2Result


class RiskAnalysisFailed(ExternalServiceError):
    """The analyst gave no usable answer (timeout, provider error, invalid output)."""

    code = "risk_analysis_failed"


class RiskAnalysis(BaseModel):
    """The structured answer an analyst must return."""

    level: RiskLevel = Field(description="low, medium, high or critical")
    reason: str = Field(min_length=1, max_length=500, description="One or two sentences: why this level.")


class RiskAnalyst(Protocol):
    """Reads one action in context and proposes a level. Raises RiskAnalysisFailed when it cannot answer."""

    @property
    def name(self) -> str: ...

    async def analyse(self, action: RiskInput, stage1: Stage1Result) -> RiskAnalysis: ...

    async def aclose(self) -> None:
        """Release connections (an LLM client's HTTP pool)."""


def bound_level(stage1: Stage1Result, stage2: Stage2Result) -> tuple[RiskLevel, str]:
    """The final level and the sentence that explains how stage 2 was taken into account."""
    if stage2.failed or stage2.level is None:
        if stage1.level is RiskLevel.MEDIUM:
            return RiskLevel.HIGH, "The context analysis failed, so medium was raised to high to stay safe."
        return stage1.level, "The context analysis failed; the stage-1 level stands."
    proposed = stage2.level
    if stage1.effect.changes_state:
        if proposed.rank < stage1.level.rank:
            return stage1.level, (
                f"The analyst proposed {proposed.value}, but a {stage1.effect.value} action can only be raised; "
                f"{stage1.level.value} stands."
            )
        return proposed, f"Context analysis: {stage2.reason}"
    if proposed.rank < stage1.level.rank and stage1.injection_detected:
        return stage1.level, "The page tried to talk the detector down, so the analyst may not lower the level."
    final = proposed.at_least(stage1.floor)
    if final is not proposed:
        return final, f"The analyst proposed {proposed.value}, but a rule fixes at least {final.value}."
    return final, f"Context analysis: {stage2.reason}"
