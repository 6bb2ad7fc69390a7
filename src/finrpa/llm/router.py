"""The model router (SPEC C7): page features → complexity → tier, with promotion where a tier keeps failing.

Each threshold a page crosses is one *signal*: more than ``element_count`` elements, frames nested at least
``iframe_depth`` deep, an open shadow root, at least ``form_fields`` form fields, dynamic content
(AJAX/WebSocket seen). No signal → SIMPLE → LIGHT; fewer than ``complex_signals`` → MODERATE → STANDARD;
more → COMPLEX → HEAVY. When a tier has failed ``promote_after_failures`` times on one page signature
(within ``failure_memory_s``), that page is routed one tier up. Failure counts live in the KeyValueStore,
so every worker sees them; each decision is stored with its features through a :class:`DecisionSink`.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from finrpa.cache import CacheUnavailableError, KeyValueStore
from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.exceptions import FinRPAError
from finrpa.llm.tiers import Tier

logger = logging.getLogger(__name__)
_DIGITS = re.compile(r"\d+")
_HEX_ID = re.compile(r"[0-9a-f]{16,}")


class ComplexityLevel(StrEnum):
    SIMPLE = "simple"
    MODERATE = "moderate"
    COMPLEX = "complex"


TIER_FOR_COMPLEXITY = {
    ComplexityLevel.SIMPLE: Tier.LIGHT,
    ComplexityLevel.MODERATE: Tier.STANDARD,
    ComplexityLevel.COMPLEX: Tier.HEAVY,
}


class PageFeatures(BaseModel):
    """What makes a page hard for a model, measured on the live page (see ``measure_page_features``)."""

    element_count: int = Field(ge=0)
    iframe_depth: int = Field(ge=0, description="0: no frames; 1: frames in the page; 2: frames in frames.")
    has_shadow_dom: bool
    form_field_count: int = Field(ge=0)
    dynamic_content: bool = Field(description="AJAX (fetch/XHR) or WebSocket traffic was seen.")


@dataclass(frozen=True)
class RouterThresholds:
    element_count: int = 500
    iframe_depth: int = 2
    form_fields: int = 20
    complex_signals: int = 2
    promote_after_failures: int = 3
    failure_memory_s: int = 7 * 24 * 3600

    @classmethod
    def from_settings(cls, settings: Settings) -> RouterThresholds:
        return cls(
            element_count=settings.llm_router_element_count,
            iframe_depth=settings.llm_router_iframe_depth,
            form_fields=settings.llm_router_form_fields,
            complex_signals=settings.llm_router_complex_signals,
            promote_after_failures=settings.llm_router_promote_after_failures,
            failure_memory_s=settings.llm_router_failure_memory_s,
        )


@dataclass(frozen=True)
class RoutingDecision:
    page_signature: str
    features: PageFeatures
    complexity: ComplexityLevel
    signals: tuple[str, ...]
    tier: Tier
    promoted: bool
    decided_at: datetime = field(default_factory=utcnow)


class DecisionSink(Protocol):
    """Where decisions are stored (``finrpa.llm.service.DatabaseDecisionSink`` writes llm_router_decisions)."""

    async def store(self, org_id: str, run_id: str | None, decision: RoutingDecision) -> None: ...


def complexity_signals(features: PageFeatures, thresholds: RouterThresholds) -> tuple[str, ...]:
    """The names of the thresholds ``features`` crosses."""
    checks = {
        "element_count": features.element_count > thresholds.element_count,
        "iframe_depth": features.iframe_depth >= thresholds.iframe_depth,
        "shadow_dom": features.has_shadow_dom,
        "form_fields": features.form_field_count >= thresholds.form_fields,
        "dynamic_content": features.dynamic_content,
    }
    return tuple(name for name, crossed in checks.items() if crossed)


def classify(features: PageFeatures, thresholds: RouterThresholds) -> ComplexityLevel:
    signals = len(complexity_signals(features, thresholds))
    if signals == 0:
        return ComplexityLevel.SIMPLE
    return ComplexityLevel.COMPLEX if signals >= thresholds.complex_signals else ComplexityLevel.MODERATE


def page_signature(url: str, title: str = "") -> str:
    """A stable id for "this kind of page": host and path with numbers and long hex ids folded, plus title."""
    parts = urlsplit(url)
    path = _HEX_ID.sub("{id}", _DIGITS.sub("{n}", parts.path.lower()))
    source = f"{parts.hostname or ''}|{path}|{' '.join(title.split())}"
    return hashlib.sha256(source.encode()).hexdigest()[:32]


class ModelRouter:
    """Chooses the tier for a page; remembers failures per (org, page signature, tier)."""

    def __init__(self, store: KeyValueStore, thresholds: RouterThresholds, sink: DecisionSink | None = None) -> None:
        self._store = store
        self._thresholds = thresholds
        self._sink = sink

    @classmethod
    def from_settings(cls, settings: Settings, store: KeyValueStore, sink: DecisionSink | None = None) -> ModelRouter:
        return cls(store, RouterThresholds.from_settings(settings), sink)

    async def route(
        self, org_id: str, signature: str, features: PageFeatures, *, run_id: str | None = None
    ) -> RoutingDecision:
        """The tier for this page, promoted past any tier that keeps failing on it; stored with its features."""
        complexity = classify(features, self._thresholds)
        tier = TIER_FOR_COMPLEXITY[complexity]
        base = tier
        while tier is not Tier.HEAVY and await self._failures(org_id, signature, tier) >= self._limit:
            tier = tier.promoted()
        decision = RoutingDecision(
            page_signature=signature,
            features=features,
            complexity=complexity,
            signals=complexity_signals(features, self._thresholds),
            tier=tier,
            promoted=tier is not base,
        )
        await self._store_decision(org_id, run_id, decision)
        return decision

    async def record_outcome(self, org_id: str, signature: str, tier: Tier, ok: bool) -> None:
        """Count a failure of ``tier`` on this page (a success leaves the count: promotion is sticky until
        the failures age out after ``failure_memory_s``)."""
        if ok:
            return
        try:
            await self._store.incr(_failures_key(org_id, signature, tier), ttl_s=self._thresholds.failure_memory_s)
        except CacheUnavailableError as exc:
            logger.warning("Router failure not remembered: %s", exc.message)

    async def _store_decision(self, org_id: str, run_id: str | None, decision: RoutingDecision) -> None:
        if self._sink is None:
            return
        try:
            await self._sink.store(org_id, run_id, decision)
        except FinRPAError as exc:  # the decision stands; losing its record must not stop the run
            logger.error("Router decision not stored: %s", exc.message)

    @property
    def _limit(self) -> int:
        return self._thresholds.promote_after_failures

    async def _failures(self, org_id: str, signature: str, tier: Tier) -> int:
        try:
            return int(await self._store.get(_failures_key(org_id, signature, tier)) or 0)
        except CacheUnavailableError as exc:
            logger.warning("Router failure counts unavailable, routing by features only: %s", exc.message)
            return 0


def _failures_key(org_id: str, signature: str, tier: Tier) -> str:
    return f"llm_router:{org_id}:{signature}:{tier.value}:failures"
