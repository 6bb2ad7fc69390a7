"""Stage 1's first half: collect what the action's context contains (keywords, identifiers, amounts, counts).

Nothing here decides a level; :mod:`finrpa.risk.rules` does. The action's own texts (target, values, page
title) are short and read in full. The page body can be 50 KB, so it is read only on first use: talk-down phrases
when the hits are reported, operations, amounts and record counts when a rule asks, which only a confirm step
(what does the dialog confirm, and for how much?) or an export (how many records?) does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property

from finrpa.risk.amounts import AmountMention, amounts_in_values, find_amounts, is_money_label, largest_amount
from finrpa.risk.categories import Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.counts import counts_in_values, record_counts
from finrpa.risk.identifiers import find_identifiers
from finrpa.risk.levels import RiskLevel
from finrpa.risk.library import DomainMatchers, KeywordEntry, KeywordMatcher, PageScan, ProbeResult
from finrpa.risk.schemas import ActionValue, Location, RiskHit, RiskInput


@dataclass(frozen=True, slots=True)
class PricedAmount:
    """An amount found in the action's context, with its value in CNY and where it was found."""

    mention: AmountMention
    cny: Decimal
    location: Location


@dataclass
class Evidence:
    """Everything stage 1 recognised, grouped so the rules can ask simple questions."""

    action: RiskInput
    values: dict[str, str]
    config: RiskConfig
    matchers: DomainMatchers
    keyword_hits: list[RiskHit] = field(default_factory=list)
    identifier_hits: list[RiskHit] = field(default_factory=list)
    action_amounts: list[PricedAmount] = field(default_factory=list)

    @cached_property
    def page_probe(self) -> ProbeResult:
        """Whether the page body holds a talk-down phrase, a money label or a full-width digit (one pass; set by
        :attr:`page_scan` when a rule read the page's operations first)."""
        return self.matchers.probe.find(self.action.page_text)

    @cached_property
    def page_scan(self) -> PageScan:
        """Operations named in the page body (read only when a rule asks); the same pass answers the probe."""
        scan, probe = self.matchers.scan_page(self.action.page_text, probe="page_probe" not in self.__dict__)
        if probe is not None:
            self.__dict__["page_probe"] = probe
        return scan

    @cached_property
    def injection_hits(self) -> list[RiskHit]:
        """Talk-down phrases in the page body, read when the hits are reported: after the rules, so that a confirm
        step that read the page's operations has probed the page in the same pass."""
        if not self.page_probe.injection:
            return []
        return _hits(self.matchers.injection, self.action.page_text, Location.PAGE_TEXT)

    @cached_property
    def page_hits(self) -> list[RiskHit]:
        """Operations named in the page body (read only when a rule asks)."""
        return _entry_hits(self.page_scan.entries, Location.PAGE_TEXT)

    @cached_property
    def page_amounts(self) -> list[PricedAmount]:
        """Every amount in the page body, in order (the rules need only :attr:`deciding_page_amount`)."""
        mentions = find_amounts(self.action.page_text, tuple(self.config.fx_to_cny))
        return _in_cny(mentions, Location.PAGE_TEXT, self.config)

    @cached_property
    def deciding_page_amount(self) -> PricedAmount | None:
        """The amount a confirm step confirms: the largest labelled one in the page body (in CNY), else the
        largest; the first of equals. Same answer as taking it from :attr:`page_amounts`, without pricing each."""
        found = largest_amount(
            self.action.page_text,
            tuple(self.config.fx_to_cny),
            self.config.to_cny,
            unmodelled=self.page_probe.unmodelled,
            full_width=self.page_probe.full_width,
            plain_yuan=self.page_probe.plain_yuan,
            yuan_plain=self.page_probe.yuan_plain,
            currencies=self.page_probe.currencies,
            labels=self.page_probe.labels,
        )
        return None if found is None else PricedAmount(found[0], found[1], Location.PAGE_TEXT)

    @cached_property
    def record_counts(self) -> list[int]:
        action = self.action
        counts = counts_in_values(self.values) + record_counts(action.target_text) + record_counts(action.page_title)
        return counts or record_counts(action.page_text)

    def categories(self, *locations: Location) -> set[Category]:
        return {hit.category for hit in self.keyword_hits if hit.location in locations}

    def action_categories(self) -> set[Category]:
        return self.categories(Location.TARGET_TEXT, Location.VALUES, Location.PAGE_TITLE)

    def first(self, category: Category, *locations: Location) -> RiskHit | None:
        return next((hit for hit in self.keyword_hits if hit.category is category and hit.location in locations), None)

    def reported_hits(self) -> list[RiskHit]:
        """The keyword hits to show: the action's own, talk-down phrases, and page operations if they were read."""
        page = self.__dict__.get("page_hits", [])
        return [*self.keyword_hits, *self.injection_hits, *page]


def collect_evidence(action: RiskInput, matchers: DomainMatchers, config: RiskConfig) -> Evidence:
    values = flatten_values(action.values)
    joined = values_text(values)
    evidence = Evidence(action=action, values=values, config=config, matchers=matchers)
    evidence.keyword_hits = [
        *_hits(matchers.action, action.target_text, Location.TARGET_TEXT),
        *_hits(matchers.action, joined, Location.VALUES),
        *_hits(matchers.action, action.page_title, Location.PAGE_TITLE),
    ]
    evidence.identifier_hits = collect_identifiers(action, joined)
    evidence.action_amounts = collect_action_amounts(action, values, config)
    return evidence


def flatten_values(values: dict[str, ActionValue]) -> dict[str, str]:
    """Form values as text (lists joined), keys kept: field names are evidence too (付款金额, 收款人)."""
    flat: dict[str, str] = {}
    for key, value in values.items():
        items = value if isinstance(value, list) else [value]
        flat[key] = " ".join("" if item is None else str(item) for item in items)
    return flat


def values_text(values: dict[str, str]) -> str:
    return "\n".join(f"{key}: {value}" for key, value in values.items())


def _hits(matcher: KeywordMatcher, text: str, location: Location) -> list[RiskHit]:
    return _entry_hits(matcher.find(text), location)


def _entry_hits(entries: Iterable[KeywordEntry], location: Location) -> list[RiskHit]:
    return [
        RiskHit(category=entry.category, level=entry.level, location=location, term=entry.term) for entry in entries
    ]


def collect_identifiers(action: RiskInput, values: str) -> list[RiskHit]:
    texts = {Location.TARGET_TEXT: action.target_text, Location.VALUES: values}
    return [
        RiskHit(
            category=mention.category,
            level=RiskLevel.MEDIUM,
            location=location,
            term=mention.masked,
            confidence=mention.confidence,
        )
        for location, text in texts.items()
        for mention in find_identifiers(text)
    ]


def collect_action_amounts(action: RiskInput, values: dict[str, str], config: RiskConfig) -> list[PricedAmount]:
    codes = tuple(config.fx_to_cny)
    money_target = is_money_label(action.target_text)
    return [
        *_in_cny(amounts_in_values(values, codes, money_target=money_target), Location.VALUES, config),
        *_in_cny(find_amounts(action.target_text, codes), Location.TARGET_TEXT, config),
        *_in_cny(find_amounts(action.page_title, codes), Location.PAGE_TITLE, config),
    ]


def _in_cny(mentions: list[AmountMention], location: Location, config: RiskConfig) -> list[PricedAmount]:
    priced: list[PricedAmount] = []
    for mention in mentions:
        cny = config.to_cny(mention.value, mention.currency)
        if cny is not None:
            priced.append(PricedAmount(mention, cny, location))
    return priced
