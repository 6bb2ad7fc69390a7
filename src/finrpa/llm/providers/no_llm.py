"""The no-LLM adapter of the embedded default: every call says clearly that an LLM must be configured."""

from __future__ import annotations

from finrpa.llm.errors import LLMNotConfigured
from finrpa.llm.providers.base import Completion, CompletionRequest


class NoLLMProvider:
    name = "none"

    @property
    def configured(self) -> bool:
        return False

    async def complete(self, request: CompletionRequest) -> Completion:
        raise LLMNotConfigured()

    async def aclose(self) -> None:
        return None
