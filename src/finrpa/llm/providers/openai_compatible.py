"""OpenAI-compatible chat completions through the official ``openai`` SDK (OpenAI, Azure, DeepSeek,
Qwen/DashScope, vLLM, Ollama: anything that serves ``/v1/chat/completions``)."""

from __future__ import annotations

from typing import Any, Literal

import openai
from openai import AsyncOpenAI

from finrpa.llm.providers.base import Completion, CompletionRequest, FaultKind, ProviderFault
from finrpa.llm.providers.faults import translate_sdk_error

JsonMode = Literal["json_schema", "json_object", "none"]


class OpenAICompatibleProvider:
    """One AsyncOpenAI client; the SDK's own retries are off because the LLM layer retries with backoff."""

    name = "openai"

    def __init__(self, *, base_url: str | None, api_key: str, timeout_s: float, json_mode: JsonMode) -> None:
        self._client = AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self._timeout_s = timeout_s
        self._json_mode = json_mode

    @property
    def configured(self) -> bool:
        return True

    async def complete(self, request: CompletionRequest) -> Completion:
        messages: list[Any] = [{"role": "system", "content": request.system}]
        messages += [{"role": message.role, "content": message.content} for message in request.messages]
        extra: dict[str, Any] = {}
        response_format = self._response_format(request)
        if response_format is not None:
            extra["response_format"] = response_format
        try:
            response = await self._client.chat.completions.create(
                model=request.model,
                messages=messages,
                max_tokens=request.max_output_tokens,
                temperature=request.temperature,
                **extra,
            )
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, self.name, request.model, self._timeout_s) from exc
        return _completion(response, request.model)

    def _response_format(self, request: CompletionRequest) -> dict[str, Any] | None:
        if self._json_mode == "json_object":
            return {"type": "json_object"}
        if self._json_mode == "json_schema" and request.json_schema is not None:
            schema = {"name": request.schema_name, "schema": request.json_schema, "strict": False}
            return {"type": "json_schema", "json_schema": schema}
        return None

    async def aclose(self) -> None:
        await self._client.close()


def _completion(response: Any, requested_model: str) -> Completion:
    if not response.choices:
        raise ProviderFault(FaultKind.EMPTY_REPLY, "openai returned no choices")
    choice = response.choices[0]
    text = choice.message.content
    if not text:
        refusal = getattr(choice.message, "refusal", None)
        reason = f"it refused: {refusal}" if refusal else f"finish reason {choice.finish_reason!r}"
        raise ProviderFault(FaultKind.EMPTY_REPLY, f"openai returned an empty message ({reason})")
    usage = response.usage
    return Completion(
        text=text,
        input_tokens=usage.prompt_tokens if usage else 0,
        output_tokens=usage.completion_tokens if usage else 0,
        model=response.model or requested_model,
        truncated=choice.finish_reason == "length",
    )
