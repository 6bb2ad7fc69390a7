"""Model tiers (LIGHT / STANDARD / HEAVY): which model and which prices a tier uses, from settings."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from finrpa.config import Settings

_MILLION = Decimal(1_000_000)


class Tier(StrEnum):
    LIGHT = "light"
    STANDARD = "standard"
    HEAVY = "heavy"

    def promoted(self) -> Tier:
        """The next tier up (HEAVY stays HEAVY)."""
        order = list(Tier)
        return order[min(order.index(self) + 1, len(order) - 1)]


@dataclass(frozen=True)
class TierModel:
    """The model a tier calls and its prices in USD per one million input / output tokens."""

    tier: Tier
    model: str
    price_input_per_mtok: Decimal
    price_output_per_mtok: Decimal

    def cost_usd(self, input_tokens: int, output_tokens: int) -> Decimal:
        cost = (input_tokens * self.price_input_per_mtok + output_tokens * self.price_output_per_mtok) / _MILLION
        return cost.quantize(Decimal("0.000001"))


def tier_model(settings: Settings, tier: Tier) -> TierModel | None:
    """The model of ``tier``; an unset LIGHT or HEAVY model uses STANDARD's model and prices.

    None when no model is configured at all.
    """
    configured = {
        Tier.LIGHT: settings.llm_model_light,
        Tier.STANDARD: settings.llm_model_standard,
        Tier.HEAVY: settings.llm_model_heavy,
    }
    priced_as = tier if configured[tier] else Tier.STANDARD
    model = configured[priced_as]
    if not model:
        return None
    price_in = getattr(settings, f"llm_price_{priced_as.value}_input")
    price_out = getattr(settings, f"llm_price_{priced_as.value}_output")
    return TierModel(tier, model, Decimal(str(price_in)), Decimal(str(price_out)))
