"""Anthropic Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

from typing import Any, Literal

import anthropic
from anthropic import AsyncAnthropic

from finrpa.llm.providers.base import Completion, CompletionRequest, FaultKind, ProviderFault
from finrpa.llm.providers.faults import translate_sdk_error

JsonMode = Literal["json_schema", "json_object", "none"]


class AnthropicProvider:
    """One AsyncAnthropic client; ``json_schema`` mode sends the schema as ``output_config.format``.

    No temperature is sent: the current Messages API no longer takes one.
    """

    name = "anthropic"

    def __init__(self, *, base_url: str | None, api_key: str, timeout_s: float, json_mode: JsonMode) -> None:
        self._client = AsyncAnthropic(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self._timeout_s = timeout_s
        self._json_mode = json_mode

    @property
    def configured(self) -> bool:
        return True

    async def complete(self, request: CompletionRequest) -> Completion:
        extra: dict[str, Any] = {}
        if self._json_mode == "json_schema" and request.json_schema is not None:
            extra["output_config"] = {"format": {"type": "json_schema", "schema": request.json_schema}}
        messages: list[Any] = [{"role": message.role, "content": message.content} for message in request.messages]
        try:
            response = await self._client.messages.create(
                model=request.model,
                system=request.system,
                messages=messages,
                max_tokens=request.max_output_tokens,
                **extra,
            )
        except anthropic.AnthropicError as exc:
            raise translate_sdk_error(exc, self.name, request.model, self._timeout_s) from exc
        return _completion(response, request.model)

    async def aclose(self) -> None:
        await self._client.close()


def _completion(response: Any, requested_model: str) -> Completion:
    text = "".join(block.text for block in response.content if getattr(block, "type", "") == "text")
    if not text:
        raise ProviderFault(FaultKind.EMPTY_REPLY, f"anthropic returned no text (stop reason {response.stop_reason!r})")
    return Completion(
        text=text,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
        model=response.model or requested_model,
        truncated=response.stop_reason == "max_tokens",
    )
