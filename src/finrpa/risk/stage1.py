"""Stage 1 of risk detection: milliseconds, no cost, no network. Keywords, recognisers and level rules."""

from __future__ import annotations

from functools import lru_cache

from finrpa.risk.categories import Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.evidence import collect_evidence
from finrpa.risk.library import BUSINESS_DOMAINS, DomainMatchers, library_entries
from finrpa.risk.rules import decide
from finrpa.risk.schemas import RiskInput, Stage1Result


@lru_cache(maxsize=32)
def _domain_matchers(key: str, config_json: str) -> DomainMatchers:
    """Matchers are built once per process for each domain and rule set (tens of milliseconds: every run step
    makes a detector, and must not pay that)."""
    config = RiskConfig.model_validate_json(config_json)
    return DomainMatchers.build(library_entries(key, config), tuple(config.fx_to_cny))


class Stage1Detector:
    """Uses one set of keyword automata per domain (built on first use in the process) and assesses actions
    against the config's rules."""

    def __init__(self, config: RiskConfig | None = None) -> None:
        self.config = config or RiskConfig()
        self._config_json: str | None = None
        self._matchers: dict[str, DomainMatchers] = {}

    def matchers(self, domain: str) -> DomainMatchers:
        key = domain if domain in BUSINESS_DOMAINS else "*"
        if key not in self._matchers:
            if self._config_json is None:
                self._config_json = self.config.model_dump_json()
            self._matchers[key] = _domain_matchers(key, self._config_json)
        return self._matchers[key]

    def assess(self, action: RiskInput) -> Stage1Result:
        evidence = collect_evidence(action, self.matchers(action.domain), self.config)
        verdict = decide(evidence, action.effect)
        injections = [hit for hit in evidence.reported_hits() if hit.category is Category.INJECTION]
        reasons = list(verdict.reasons)
        if injections:
            reasons.append(
                f"Text in the page tries to set the risk level or skip approval ({injections[0].term!r}); "
                "it was ignored."
            )
        if not reasons:
            reasons.append("No risk indicator in the action or its context.")
        return Stage1Result(
            hits=[*evidence.reported_hits(), *evidence.identifier_hits, *verdict.extra_hits],
            level=verdict.level,
            floor=verdict.floor,
            effect=verdict.effect,
            reasons=reasons,
            injection_detected=bool(injections),
        )
