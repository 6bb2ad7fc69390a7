"""The stage-2 analyst over FinRPA's LLM layer: a versioned prompt, structured output, identifiers masked.

Page content is fenced as untrusted data; card, ID and account numbers are masked before anything is sent.
A call that ends without a valid answer raises :class:`RiskAnalysisFailed` (the assessor then applies the
conservative upgrade).
"""

from __future__ import annotations

from finrpa.config import get_settings
from finrpa.llm.client import LLMClient
from finrpa.llm.fencing import Untrusted
from finrpa.llm.prompts import PromptLibrary, PromptTemplate
from finrpa.llm.tiers import Tier
from finrpa.llm.usage import CallContext, LogUsageRecorder
from finrpa.risk.config import RiskConfig
from finrpa.risk.identifiers import redact_identifiers
from finrpa.risk.schemas import RiskInput, Stage1Result
from finrpa.risk.stage2 import RiskAnalysis, RiskAnalysisFailed

PROMPT_ID = "risk.context_analysis"
PAGE_TEXT_CHARS = 6000
_PROMPTS = PromptLibrary.for_package("finrpa.risk")


def risk_prompt(version: int | None = None) -> PromptTemplate:
    return _PROMPTS.load(PROMPT_ID, version)


class LLMRiskAnalyst:
    """Asks the configured LLM (light tier by default) for a level and a reason."""

    def __init__(
        self,
        client: LLMClient,
        context: CallContext,
        *,
        config: RiskConfig | None = None,
        tier: Tier = Tier.LIGHT,
    ) -> None:
        self._client = client
        self._context = context
        self._config = config or RiskConfig()
        self._tier = tier

    @property
    def name(self) -> str:
        return f"llm:{self._tier.value}"

    async def analyse(self, action: RiskInput, stage1: Stage1Result) -> RiskAnalysis:
        result = await self._client.call_structured(
            risk_prompt(),
            RiskAnalysis,
            tier=self._tier,
            context=self._context,
            variables=self._variables(action, stage1),
        )
        if result.data is None:
            detail = "; ".join(result.errors) or "no answer"
            raise RiskAnalysisFailed(
                f"The LLM gave no valid risk analysis after {result.attempts} attempt(s) ({detail})."
            )
        return result.data

    async def aclose(self) -> None:
        await self._client.aclose()

    def _variables(self, action: RiskInput, stage1: Stage1Result) -> dict[str, str | Untrusted]:
        values = "; ".join(f"{key}={value}" for key, value in action.values.items())
        findings = "; ".join(f"{hit.category.value}:{hit.term}" for hit in stage1.hits[:40])
        return {
            "payment_threshold": f"{self._config.payment_critical_cny:,.0f}",
            "securities_threshold": f"{self._config.securities_order_critical_cny:,.0f}",
            "domain": action.domain,
            "action_type": action.action_type,
            "effect": stage1.effect.value,
            "target": Untrusted(redact_identifiers(action.target_text), "target"),
            "values": Untrusted(redact_identifiers(values), "values"),
            "title": Untrusted(redact_identifiers(action.page_title), "title"),
            "stage1_level": stage1.level.value,
            "findings": redact_identifiers(findings),
            "page_text": Untrusted(redact_identifiers(action.page_text[:PAGE_TEXT_CHARS]), "page"),
        }


def analyst_from_settings(config: RiskConfig | None = None, org_id: str = "local") -> LLMRiskAnalyst | None:
    """The LLM analyst for the configured provider, or None in deterministic mode (no LLM configured)."""
    settings = get_settings()
    if settings.llm_provider == "none":
        return None
    client = LLMClient.from_settings(settings, LogUsageRecorder())
    return LLMRiskAnalyst(client, CallContext(org_id=org_id), config=config)
