"""Errors the LLM layer raises on purpose (provider faults are never raised: they end in an LLMCallResult).

Tree (all derive from :class:`finrpa.exceptions.FinRPAError`)::

    ConfigurationError
    ├── LLMNotConfigured          no provider is configured and the caller needs one
    ├── LLMProviderRejected       the provider refused the credentials or does not know the model
    └── PromptError               a prompt file is missing, malformed or was rendered without a variable
    ValidationFailedError
    ├── StructuredOutputError     a reply is not JSON or does not match the expected schema
    └── ActionCacheRejected       a value offered to the action cache holds refs, data or secrets
"""

from __future__ import annotations

from finrpa.exceptions import ConfigurationError, ValidationFailedError

LLM_NOT_CONFIGURED_HELP = (
    "No LLM is configured, and free-form goals and LLM decisions need one. Templates and skills still run "
    "without it. To configure one set FINRPA_LLM_PROVIDER=openai (any OpenAI-compatible endpoint: OpenAI, "
    "Azure, DeepSeek, Qwen/DashScope, vLLM, Ollama) or FINRPA_LLM_PROVIDER=anthropic, plus "
    "FINRPA_LLM_BASE_URL, FINRPA_LLM_API_KEY and FINRPA_LLM_MODEL_STANDARD (optionally _LIGHT and _HEAVY)."
)


class LLMNotConfigured(ConfigurationError):
    code = "llm_not_configured"
    http_status = 503

    def __init__(self, message: str = LLM_NOT_CONFIGURED_HELP) -> None:
        super().__init__(message)


class LLMProviderRejected(ConfigurationError):
    code = "llm_provider_rejected"


class PromptError(ConfigurationError):
    code = "prompt_error"


class StructuredOutputError(ValidationFailedError):
    code = "llm_structured_output_invalid"


class ActionCacheRejected(ValidationFailedError):
    code = "action_cache_rejected"
