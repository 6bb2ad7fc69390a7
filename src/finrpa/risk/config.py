"""Per-organisation risk rules: thresholds, FX table, level floors and extra keywords (YAML or JSON file).

Every field has the SPEC C10 default, so an empty file (or no file) means the default rules. A compliance team
changes a threshold by writing only that field, e.g. ``payment_critical_cny: 500000``.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from finrpa.exceptions import ValidationFailedError
from finrpa.risk.categories import HIGH_IMPACT, Category
from finrpa.risk.levels import RiskLevel

DEFAULT_FX_TO_CNY: dict[str, Decimal] = {
    "CNY": Decimal("1"),
    "USD": Decimal("7.20"),
    "HKD": Decimal("0.92"),
    "EUR": Decimal("7.80"),
    "GBP": Decimal("9.10"),
    "JPY": Decimal("0.048"),
}


class ExtraKeyword(BaseModel):
    """A keyword an organisation adds to the shipped libraries."""

    model_config = ConfigDict(extra="forbid")

    term: str = Field(min_length=1)
    level: RiskLevel
    category: Category
    domain: str = "common"


class RiskConfig(BaseModel):
    """The rules stage 1 applies and the levels that need a person's approval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    payment_critical_cny: Decimal = Decimal("1000000")
    securities_order_critical_cny: Decimal = Decimal("5000000")
    amount_alert_cny: Decimal = Decimal("50000")
    bulk_export_records: int = 100
    # "Confirmed" payment: only the submit/confirm step (or an irreversible action) reaches critical;
    # typing the amount into the form is high. Set false to make any write with such an amount critical.
    critical_requires_confirmation: bool = True
    fx_to_cny: dict[str, Decimal] = Field(default_factory=lambda: dict(DEFAULT_FX_TO_CNY))
    category_floors: dict[Category, RiskLevel] = Field(
        default_factory=lambda: (
            {category: RiskLevel.HIGH for category in HIGH_IMPACT} | {Category.CREDENTIAL_CHANGE: RiskLevel.CRITICAL}
        )
    )
    approval_levels: frozenset[RiskLevel] = frozenset({RiskLevel.HIGH, RiskLevel.CRITICAL})
    extra_keywords: tuple[ExtraKeyword, ...] = ()
    disabled_keywords: frozenset[str] = frozenset()

    @field_validator("fx_to_cny")
    @classmethod
    def _upper_case_currencies(cls, table: dict[str, Decimal]) -> dict[str, Decimal]:
        merged = dict(DEFAULT_FX_TO_CNY)
        merged.update({code.upper(): rate for code, rate in table.items()})
        return merged

    @field_validator("category_floors")
    @classmethod
    def _keep_unlisted_defaults(cls, floors: dict[Category, RiskLevel]) -> dict[Category, RiskLevel]:
        defaults = {category: RiskLevel.HIGH for category in HIGH_IMPACT}
        defaults[Category.CREDENTIAL_CHANGE] = RiskLevel.CRITICAL
        return defaults | floors

    def to_cny(self, amount: Decimal, currency: str) -> Decimal | None:
        """The amount in CNY, or None when the currency is not in the FX table."""
        rate = self.fx_to_cny.get(currency.upper())
        return None if rate is None else amount * rate

    def needs_approval(self, level: RiskLevel) -> bool:
        return level in self.approval_levels


def load_risk_config(path: Path) -> RiskConfig:
    """Read an organisation's risk rules from a YAML or JSON file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValidationFailedError(f"Cannot read the risk configuration {path}: {exc.strerror}.") from exc
    try:
        raw = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ValidationFailedError(f"The risk configuration {path} is not valid YAML/JSON: {exc}.") from exc
    try:
        return RiskConfig.model_validate(raw or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValidationFailedError(
            f"The risk configuration {path} has a wrong value at '{where}': {first['msg']}. "
            "Fix that field or remove it to use the default."
        ) from exc
