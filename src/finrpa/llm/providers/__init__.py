"""LLM providers: one port (:class:`LLMProvider`) with OpenAI-compatible, Anthropic and no-LLM adapters."""

from finrpa.llm.providers.base import (
    ChatMessage,
    Completion,
    CompletionRequest,
    FaultKind,
    LLMProvider,
    ProviderFault,
)
from finrpa.llm.providers.factory import build_provider

__all__ = [
    "ChatMessage",
    "Completion",
    "CompletionRequest",
    "FaultKind",
    "LLMProvider",
    "ProviderFault",
    "build_provider",
]
