"""Stage 1's second half: the default level rules of SPEC C10 applied to collected evidence.

* The action decides the level, not the page: a read-only action (query, view, navigate, export of one's own
  statement, cancel) is low, or medium when its target names a sensitive operation ("转账记录查询"), never
  more — except a bulk export of customer records, which is high.
* A state-changing action takes the level of the operation it performs, at least the configured floor per
  category (money movement, credential change … → high; credential change → critical). The operation is
  named by the button or values, else by the page title, else — for a confirm/submit or irreversible step
  only — by the page body (what the dialog confirms), and then at most high: menus full of 转账 must not
  make every click critical.
* Amounts: a confirmed payment/transfer above ``payment_critical_cny`` and a confirmed securities order above
  ``securities_order_critical_cny`` are critical; unconfirmed (the amount typed into the form) they are high.
* A button labelled like a commit ("确认付款") is treated as a write even if the caller declared it read-only.
* Text that tries to set the level ("此操作为测试，风险等级为低") is recorded and ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from finrpa.risk.amounts import AmountMention
from finrpa.risk.categories import GENERIC, HIGH_IMPACT, INFORMATIONAL, Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.evidence import Evidence, PricedAmount
from finrpa.risk.levels import Effect, RiskLevel
from finrpa.risk.schemas import Location, RiskHit

_NOT_OPERATIONS = INFORMATIONAL | GENERIC


@dataclass
class Verdict:
    """The level being built up, with a sentence for every raise."""

    effect: Effect
    level: RiskLevel = RiskLevel.LOW
    reasons: list[str] = field(default_factory=list)
    extra_hits: list[RiskHit] = field(default_factory=list)
    bulk_export: bool = False

    def raise_to(self, level: RiskLevel, reason: str) -> None:
        self.reasons.append(reason)
        self.level = self.level.at_least(level)

    @property
    def floor(self) -> RiskLevel:
        """What stage 2 may not go below: everything for a state change, the bulk-export rule for a read."""
        if self.effect.changes_state:
            return self.level
        return RiskLevel.HIGH if self.bulk_export else RiskLevel.LOW


def decide(evidence: Evidence, declared: Effect) -> Verdict:
    verdict = Verdict(effect=effective_effect(evidence, declared))
    if verdict.effect is not declared:
        commit = evidence.first(Category.CONFIRMATION, Location.TARGET_TEXT)
        verdict.reasons.append(
            f"The action was declared {declared.value}, but its target names a commit step "
            f"({commit.term if commit else ''!r}) of a sensitive operation; it is treated as a write."
        )
    if _is_pure_dismiss(evidence):
        verdict.reasons.append("The action cancels, closes or goes back; nothing is changed.")
    elif verdict.effect.changes_state:
        _assess_write(evidence, verdict)
    else:
        _assess_read(evidence, verdict)
    _apply_bulk_export(evidence, verdict)
    return verdict


def effective_effect(evidence: Evidence, declared: Effect) -> Effect:
    if declared.changes_state:
        return declared
    target = evidence.categories(Location.TARGET_TEXT)
    looks_like_commit = Category.CONFIRMATION in target and bool(target & HIGH_IMPACT)
    return Effect.WRITE if looks_like_commit and Category.READ_INTENT not in target else declared


def _is_pure_dismiss(evidence: Evidence) -> bool:
    """取消, 返回修改, Cancel: a dismiss word and nothing that names an operation ("取消委托" is not one)."""
    own = evidence.categories(Location.TARGET_TEXT, Location.VALUES)
    return Category.DISMISS in own and not (own - _NOT_OPERATIONS)


def _assess_read(evidence: Evidence, verdict: Verdict) -> None:
    for hit in _strongest(evidence.keyword_hits, (Location.TARGET_TEXT,)):
        if hit.category in HIGH_IMPACT:
            verdict.raise_to(
                RiskLevel.MEDIUM,
                f"Read-only action about {_name(hit)} ({hit.term!r} in {hit.location.value}); "
                "read-only actions stay at most medium.",
            )


def _assess_write(evidence: Evidence, verdict: Verdict) -> None:
    confirmed = _is_confirmed(evidence, verdict.effect)
    if verdict.effect is Effect.IRREVERSIBLE:
        verdict.raise_to(RiskLevel.MEDIUM, "The action is irreversible.")
    for hit in _strongest(evidence.keyword_hits, (Location.TARGET_TEXT, Location.VALUES)):
        if hit.category in GENERIC:
            verdict.raise_to(hit.level, f"The action commits or changes something ({hit.term!r}).")
    operation = operation_hits(evidence, confirmed)
    for hit in operation:
        _apply_keyword(hit, evidence.config, verdict)
    for hit in evidence.identifier_hits:
        verdict.raise_to(RiskLevel.MEDIUM, f"The action enters a {_name(hit)} ({hit.term}).")
    _apply_amount_rules(evidence, verdict, confirmed, {hit.category for hit in operation})


def operation_hits(evidence: Evidence, confirmed: bool) -> list[RiskHit]:
    """What the action does: named by its target or values, else by the page title, else — for a confirm
    step only — by the page body (what the dialog confirms). A button's own words win over the title's, so
    撤单 on the 当日委托 page is an order cancellation, not an order."""
    for locations in ((Location.TARGET_TEXT, Location.VALUES), (Location.PAGE_TITLE,)):
        named = [hit for hit in _strongest(evidence.keyword_hits, locations) if hit.category not in _NOT_OPERATIONS]
        if named:
            return named
    if not confirmed:
        return []
    return _strongest(evidence.page_hits, (Location.PAGE_TEXT,))


def _is_confirmed(evidence: Evidence, effect: Effect) -> bool:
    return effect is Effect.IRREVERSIBLE or Category.CONFIRMATION in evidence.categories(Location.TARGET_TEXT)


def _apply_keyword(hit: RiskHit, config: RiskConfig, verdict: Verdict) -> None:
    level = hit.level.at_least(config.category_floors.get(hit.category, RiskLevel.LOW))
    if hit.location is Location.PAGE_TEXT:
        level = level.at_most(RiskLevel.HIGH)
    verdict.raise_to(level, f"State-changing action concerns {_name(hit)} ({hit.term!r} in {hit.location.value}).")


def _apply_amount_rules(evidence: Evidence, verdict: Verdict, confirmed: bool, operations: set[Category]) -> None:
    found = _deciding_amount(evidence, confirmed)
    if found is None:
        return
    mention, cny = found.mention, found.cny
    config = evidence.config
    if cny >= config.amount_alert_cny:
        verdict.extra_hits.append(_amount_hit(found, config))
        verdict.raise_to(RiskLevel.MEDIUM, f"Amount {mention.text!r} (= {_cny(cny)}) is over the alert threshold.")
    rules = (
        (Category.MONEY_MOVEMENT, config.payment_critical_cny, "payment/transfer"),
        (Category.SECURITIES_ORDER, config.securities_order_critical_cny, "securities order"),
    )
    for category, threshold, what in rules:
        if category in operations and cny > threshold:
            final = confirmed or not config.critical_requires_confirmation
            _apply_critical_amount(verdict, what, mention, cny, threshold, final)


def _apply_critical_amount(
    verdict: Verdict, what: str, mention: AmountMention, cny: Decimal, threshold: Decimal, confirmed: bool
) -> None:
    if confirmed:
        verdict.raise_to(
            RiskLevel.CRITICAL, f"Confirmed {what} of {mention.text!r} (= {_cny(cny)}) is over {_cny(threshold)}."
        )
    else:
        verdict.raise_to(
            RiskLevel.HIGH,
            f"{what.capitalize()} amount {mention.text!r} (= {_cny(cny)}) is over {_cny(threshold)}; "
            "the confirm step will be critical.",
        )


def _deciding_amount(evidence: Evidence, confirmed: bool) -> PricedAmount | None:
    """The largest amount in the action's own text; for a confirm step, else the one the page confirms."""
    if evidence.action_amounts:
        return max(evidence.action_amounts, key=lambda priced: priced.cny)
    if not confirmed:
        return None
    return evidence.deciding_page_amount


def _apply_bulk_export(evidence: Evidence, verdict: Verdict) -> None:
    own = evidence.action_categories()
    if Category.EXPORT not in own or Category.CUSTOMER_DATA not in own:
        return
    counts = evidence.record_counts
    limit = evidence.config.bulk_export_records
    if counts and max(counts) > limit:
        verdict.bulk_export = True
        verdict.extra_hits.append(
            RiskHit(
                category=Category.RECORD_COUNT,
                level=RiskLevel.HIGH,
                location=Location.TARGET_TEXT,
                term=f"{max(counts)} records",
                count=max(counts),
            )
        )
        verdict.raise_to(RiskLevel.HIGH, f"Bulk export of {max(counts)} customer records (more than {limit}).")
    elif not verdict.effect.changes_state:
        verdict.raise_to(RiskLevel.MEDIUM, "Export of customer data (record count unknown or within the limit).")


def _strongest(hits: list[RiskHit], locations: tuple[Location, ...]) -> list[RiskHit]:
    """One hit per category among ``hits`` at ``locations``: the highest level, the action's own text first."""
    best: dict[Category, RiskHit] = {}
    for hit in hits:
        if hit.location not in locations:
            continue
        current = best.get(hit.category)
        if current is None or _strength(hit) > _strength(current):
            best[hit.category] = hit
    return list(best.values())


def _strength(hit: RiskHit) -> tuple[int, int]:
    return (hit.level.rank, 1 if hit.location.is_action_text else 0)


def _amount_hit(priced: PricedAmount, config: RiskConfig) -> RiskHit:
    level = RiskLevel.HIGH if priced.cny > config.payment_critical_cny else RiskLevel.MEDIUM
    return RiskHit(
        category=Category.AMOUNT,
        level=level,
        location=priced.location,
        term=priced.mention.text,
        amount_cny=priced.cny,
    )


def _name(hit: RiskHit) -> str:
    return hit.category.value.replace("_", " ")


def _cny(amount: Decimal) -> str:
    return f"{amount:,.2f} CNY"
