"""Risk detection for callers: stage 1, then stage 2 on a hit (when an analyst is configured), then a decision."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from finrpa.exceptions import FinRPAError
from finrpa.risk.config import RiskConfig
from finrpa.risk.counts import counts_in_values
from finrpa.risk.evidence import collect_action_amounts, flatten_values
from finrpa.risk.levels import RiskLevel
from finrpa.risk.schemas import RiskDecision, RiskInput, Stage1Result, Stage2Result
from finrpa.risk.stage1 import Stage1Detector
from finrpa.risk.stage2 import RiskAnalyst, bound_level

DEFAULT_ANALYST_TIMEOUT_S = 30.0


class RiskAssessor:
    """The one entry point the run layer, skills and the CLI use: ``await assessor.assess(action)``."""

    def __init__(
        self,
        config: RiskConfig | None = None,
        analyst: RiskAnalyst | None = None,
        *,
        analyst_timeout_s: float = DEFAULT_ANALYST_TIMEOUT_S,
    ) -> None:
        self.config = config or RiskConfig()
        self.detector = Stage1Detector(self.config)
        self.analyst = analyst
        self.analyst_timeout_s = analyst_timeout_s

    async def aclose(self) -> None:
        if self.analyst is not None:
            await self.analyst.aclose()

    def assess_stage1(self, action: RiskInput) -> RiskDecision:
        """Stage 1 alone (no I/O): for hot paths and for deployments without an LLM."""
        stage1 = self.detector.assess(action)
        return self._decision(action, stage1, None, stage1.level, [])

    def largest_amount_cny(self, action: RiskInput) -> Decimal | None:
        """The largest sum of money the action itself moves (its values, target and title), in CNY: what a
        capability manifest bounds and a policy reads as ``amount_cny``. None when it names no amount."""
        amounts = collect_action_amounts(action, flatten_values(action.values), self.config)
        return max((priced.cny for priced in amounts), default=None)

    def record_count(self, action: RiskInput) -> int | None:
        """The largest record count the action's values name (a field 条数, "500 条"), None if none."""
        return max(counts_in_values(flatten_values(action.values)), default=None)

    async def assess(self, action: RiskInput) -> RiskDecision:
        stage1 = self.detector.assess(action)
        if self.analyst is None or not stage1.triggered:
            return self._decision(action, stage1, None, stage1.level, [])
        stage2 = await self._ask_analyst(self.analyst, action, stage1)
        final, reason = bound_level(stage1, stage2)
        return self._decision(action, stage1, stage2, final, [reason])

    async def _ask_analyst(self, analyst: RiskAnalyst, action: RiskInput, stage1: Stage1Result) -> Stage2Result:
        try:
            async with asyncio.timeout(self.analyst_timeout_s):
                analysis = await analyst.analyse(action, stage1)
        except TimeoutError:
            return Stage2Result(failed=True, reason="The analyst did not answer in time.", analyst=analyst.name)
        except FinRPAError as exc:
            return Stage2Result(failed=True, reason=exc.message, analyst=analyst.name)
        return Stage2Result(level=analysis.level, reason=analysis.reason, analyst=analyst.name)

    def _decision(
        self,
        action: RiskInput,
        stage1: Stage1Result,
        stage2: Stage2Result | None,
        final: RiskLevel,
        extra_reasons: list[str],
    ) -> RiskDecision:
        return RiskDecision(
            id=action.id,
            stage1_hits=stage1.hits,
            stage2_result=stage2,
            final_level=final,
            reasons=[*stage1.reasons, *extra_reasons],
            requires_approval=self.config.needs_approval(final),
        )
