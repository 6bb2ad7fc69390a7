"""FinRPA's LLM layer (SPEC C7): providers, structured output, prompts, model router, action cache, cost.

Public entry points (``finrpa.llm.page_features.measure_page_features`` needs Playwright)::

    from finrpa.llm import LLMClient, CallContext, Tier, Untrusted, load_prompt
    client = LLMClient.from_settings(settings, DatabaseUsageRecorder(factory))
    result = await client.call_structured(prompt, MyModel, tier=Tier.STANDARD, context=CallContext(org_id))
    if result.needs_human: ...          # the run layer moves the task to NEEDS_HUMAN and alerts
"""

from finrpa.llm.action_cache import (
    ActionCache,
    CachedAction,
    CachedDecision,
    CacheLookup,
    ElementFingerprint,
    action_cache_key,
    goal_hash,
)
from finrpa.llm.cache_health import CacheStats, HitRateDropAlert
from finrpa.llm.client import LLMClient, RetryPolicy
from finrpa.llm.errors import (
    ActionCacheRejected,
    LLMNotConfigured,
    LLMProviderRejected,
    PromptError,
    StructuredOutputError,
)
from finrpa.llm.fencing import Untrusted, fence_untrusted
from finrpa.llm.prompts import PromptLibrary, PromptTemplate, load_prompt
from finrpa.llm.redaction import redact_secrets
from finrpa.llm.router import (
    ComplexityLevel,
    ModelRouter,
    PageFeatures,
    RouterThresholds,
    RoutingDecision,
    classify,
    page_signature,
)
from finrpa.llm.service import (
    CostSummaryRow,
    DatabaseDecisionSink,
    RouterDecisionCount,
    RunLLMUsage,
    RunUsageRow,
    count_router_decisions,
    run_llm_usage,
    summarize_llm_costs,
)
from finrpa.llm.structured import LLMCallResult, TokenUsage, clean_llm_response, parse_and_validate
from finrpa.llm.tiers import Tier
from finrpa.llm.usage import (
    CallContext,
    DatabaseUsageRecorder,
    LLMCallRecord,
    LogUsageRecorder,
    UsageRecorder,
)

__all__ = [
    "ActionCache",
    "ActionCacheRejected",
    "CacheLookup",
    "CacheStats",
    "CachedAction",
    "CachedDecision",
    "CallContext",
    "ComplexityLevel",
    "CostSummaryRow",
    "DatabaseDecisionSink",
    "DatabaseUsageRecorder",
    "ElementFingerprint",
    "HitRateDropAlert",
    "LLMCallRecord",
    "LLMCallResult",
    "LLMClient",
    "LLMNotConfigured",
    "LLMProviderRejected",
    "LogUsageRecorder",
    "ModelRouter",
    "PageFeatures",
    "PromptError",
    "PromptLibrary",
    "PromptTemplate",
    "RetryPolicy",
    "RouterDecisionCount",
    "RouterThresholds",
    "RoutingDecision",
    "RunLLMUsage",
    "RunUsageRow",
    "StructuredOutputError",
    "Tier",
    "TokenUsage",
    "Untrusted",
    "UsageRecorder",
    "action_cache_key",
    "classify",
    "clean_llm_response",
    "count_router_decisions",
    "fence_untrusted",
    "goal_hash",
    "load_prompt",
    "page_signature",
    "parse_and_validate",
    "redact_secrets",
    "run_llm_usage",
    "summarize_llm_costs",
]
