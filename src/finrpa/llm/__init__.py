"""FinRPA's LLM layer (SPEC C7): providers, structured output, prompts, model router, action cache, cost.

Public entry points::

    from finrpa.llm import LLMClient, CallContext, Tier, Untrusted, load_prompt
    client = LLMClient.from_settings(settings, DatabaseUsageRecorder(factory))
    result = await client.call_structured(prompt, MyModel, tier=Tier.STANDARD, context=CallContext(org_id))
    if result.needs_human: ...          # the run layer moves the task to NEEDS_HUMAN and alerts
"""

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
    "ActionCacheRejected",
    "CallContext",
    "DatabaseUsageRecorder",
    "LLMCallRecord",
    "LLMCallResult",
    "LLMClient",
    "LLMNotConfigured",
    "LLMProviderRejected",
    "LogUsageRecorder",
    "PromptError",
    "PromptLibrary",
    "PromptTemplate",
    "RetryPolicy",
    "StructuredOutputError",
    "Tier",
    "TokenUsage",
    "Untrusted",
    "UsageRecorder",
    "clean_llm_response",
    "fence_untrusted",
    "load_prompt",
    "parse_and_validate",
    "redact_secrets",
]
