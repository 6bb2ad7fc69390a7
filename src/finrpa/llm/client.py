"""The one way FinRPA asks an LLM: a versioned prompt in, a validated object (or a NEEDS_HUMAN flag) out.

``LLMClient.call_structured`` renders the prompt (untrusted data fenced), appends the JSON Schema
instruction, redacts known secrets from every outgoing message, calls the provider, cleans and validates
the reply, retries with exponential backoff (honouring Retry-After) and feeds validation errors back to the
model. Provider faults never escape: the caller gets an :class:`LLMCallResult` with ``needs_human`` set
after the last attempt. Only configuration and programming errors raise.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeVar

from pydantic import BaseModel

from finrpa.config import Settings
from finrpa.exceptions import ConfigurationError, FinRPAError
from finrpa.llm.errors import LLMNotConfigured, StructuredOutputError
from finrpa.llm.prompts import PromptTemplate, PromptValue, load_prompt
from finrpa.llm.providers.base import ChatMessage, Completion, CompletionRequest, LLMProvider, ProviderFault
from finrpa.llm.providers.factory import build_provider
from finrpa.llm.redaction import redact_secrets
from finrpa.llm.structured import (
    LLMCallResult,
    TokenUsage,
    output_schema,
    parse_and_validate,
    schema_instruction,
)
from finrpa.llm.tiers import Tier, TierModel, tier_model
from finrpa.llm.usage import CallContext, LLMCallRecord, UsageRecorder

T = TypeVar("T", bound=BaseModel)
Sleep = Callable[[float], Awaitable[None]]

logger = logging.getLogger(__name__)
CORRECTION_PROMPT_ID = "structured_output.correction"


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts and backoff: ``initial × multiplier^(n-1)`` after the n-th failure, capped; a provider's
    Retry-After is honoured (up to ``max_retry_after_s``) when it asks for longer."""

    max_attempts: int = 3
    initial_backoff_s: float = 1.0
    multiplier: float = 2.0
    max_backoff_s: float = 30.0
    max_retry_after_s: float = 60.0

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        return cls(
            max_attempts=max(1, settings.llm_max_attempts),
            initial_backoff_s=settings.llm_backoff_initial_s,
            multiplier=settings.llm_backoff_multiplier,
            max_backoff_s=settings.llm_backoff_max_s,
            max_retry_after_s=settings.llm_retry_after_max_s,
        )

    def delay_after(self, failed_attempt: int, retry_after_s: float | None = None) -> float:
        backoff = min(self.initial_backoff_s * self.multiplier ** (failed_attempt - 1), self.max_backoff_s)
        if retry_after_s is None:
            return backoff
        return max(backoff, min(retry_after_s, self.max_retry_after_s))


@dataclass
class _Attempts:
    """Running state of one structured call across its attempts."""

    messages: list[ChatMessage]
    errors: list[str] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    raw_response: str | None = None
    count: int = 0


class LLMClient:
    """Structured calls against the configured provider; share one instance per process."""

    def __init__(
        self,
        provider: LLMProvider,
        settings: Settings,
        recorder: UsageRecorder,
        *,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._provider = provider
        self._settings = settings
        self._recorder = recorder
        self._retry = RetryPolicy.from_settings(settings)
        self._sleep = sleep

    @classmethod
    def from_settings(cls, settings: Settings, recorder: UsageRecorder, *, sleep: Sleep = asyncio.sleep) -> LLMClient:
        """The client for ``FINRPA_LLM_*`` (the no-LLM adapter when no provider is configured)."""
        return cls(build_provider(settings), settings, recorder, sleep=sleep)

    @property
    def configured(self) -> bool:
        """False in deterministic mode (no provider): callers fall back to templates and skills."""
        return self._provider.configured

    @property
    def retry_policy(self) -> RetryPolicy:
        return self._retry

    def model_for(self, tier: Tier) -> TierModel:
        """The model and prices ``tier`` uses; raises LLMNotConfigured in deterministic mode."""
        if not self.configured:
            raise LLMNotConfigured()
        chosen = tier_model(self._settings, tier)
        if chosen is None:
            raise ConfigurationError("No LLM model is configured: set FINRPA_LLM_MODEL_STANDARD.")
        return chosen

    async def call_structured(
        self,
        prompt: PromptTemplate,
        output_model: type[T],
        *,
        tier: Tier,
        context: CallContext,
        variables: Mapping[str, PromptValue] | None = None,
        known_secret_values: Collection[str] = (),
    ) -> LLMCallResult[T]:
        """Ask for an ``output_model`` object; never raises for provider faults (see the module docstring).

        ``variables`` fill the prompt; wrap page content in :class:`~finrpa.llm.fencing.Untrusted`.
        ``known_secret_values`` are redacted from everything sent, as a last line of defence.
        """
        chosen = self.model_for(tier)
        rendered = prompt.render(variables)
        system = redact_secrets(f"{rendered.system}\n\n{schema_instruction(output_model)}", known_secret_values)
        state = _Attempts(messages=[ChatMessage("user", redact_secrets(rendered.user, known_secret_values))])
        started = time.monotonic()
        data = await self._attempt_all(chosen, system, output_model, state, known_secret_values)
        result = self._result(prompt, chosen, state, data, started)
        await self._record(result, context, cached=False)
        if not result.success:
            logger.warning(
                "LLM call failed after %d attempt(s) (org %s, run %s, prompt %s v%d): %s",
                result.attempts,
                context.org_id,
                context.run_id,
                prompt.id,
                prompt.version,
                "; ".join(result.errors),
            )
        return result

    async def record_cache_hit(self, prompt: PromptTemplate, *, tier: Tier, context: CallContext) -> None:
        """Record that a verified action-cache entry replaced a call of ``prompt`` (no tokens, no cost)."""
        model = tier_model(self._settings, tier)
        record = LLMCallRecord(
            context=context,
            tier=tier,
            model=model.model if model else "",
            prompt_id=prompt.id,
            prompt_version=prompt.version,
            input_tokens=0,
            output_tokens=0,
            cost_usd=Decimal(0),
            latency_ms=0,
            attempts=0,
            success=True,
            cached=True,
        )
        await self._safe_record(record)

    async def aclose(self) -> None:
        await self._provider.aclose()

    async def _attempt_all(
        self,
        chosen: TierModel,
        system: str,
        output_model: type[T],
        state: _Attempts,
        secrets: Collection[str],
    ) -> T | None:
        schema = output_schema(output_model)
        while state.count < self._retry.max_attempts:
            state.count += 1
            request = CompletionRequest(
                model=chosen.model,
                system=system,
                messages=tuple(state.messages),
                max_output_tokens=self._settings.llm_max_output_tokens,
                temperature=self._settings.llm_temperature,
                json_schema=schema,
                schema_name=output_model.__name__,
            )
            try:
                completion = await self._provider.complete(request)
            except ProviderFault as fault:
                state.errors.append(f"attempt {state.count} ({fault.kind.value}): {fault.message}")
                if not fault.retryable:
                    return None
                await self._pause(state, fault.retry_after_s)
                continue
            data = self._accept(completion, output_model, state, secrets)
            if data is not None:
                return data
            await self._pause(state, None)
        return None

    def _accept(
        self, completion: Completion, output_model: type[T], state: _Attempts, secrets: Collection[str]
    ) -> T | None:
        state.usage += TokenUsage(input_tokens=completion.input_tokens, output_tokens=completion.output_tokens)
        state.raw_response = completion.text
        try:
            return parse_and_validate(completion.text, output_model)
        except StructuredOutputError as exc:
            reason = exc.message
            if completion.truncated:
                reason += " The reply was cut off at the output token limit (FINRPA_LLM_MAX_OUTPUT_TOKENS)."
            state.errors.append(f"attempt {state.count} (invalid_output): {reason}")
            correction = load_prompt(CORRECTION_PROMPT_ID).render({"error": reason}).user
            state.messages += [
                ChatMessage("assistant", redact_secrets(completion.text, secrets)),
                ChatMessage("user", redact_secrets(correction, secrets)),
            ]
            return None

    async def _pause(self, state: _Attempts, retry_after_s: float | None) -> None:
        if state.count < self._retry.max_attempts:
            await self._sleep(self._retry.delay_after(state.count, retry_after_s))

    def _result(
        self, prompt: PromptTemplate, chosen: TierModel, state: _Attempts, data: T | None, started: float
    ) -> LLMCallResult[T]:
        return LLMCallResult[T](
            success=data is not None,
            data=data,
            raw_response=state.raw_response,
            attempts=state.count,
            errors=state.errors,
            needs_human=data is None,
            model=chosen.model,
            tier=chosen.tier,
            usage=state.usage,
            cost_usd=chosen.cost_usd(state.usage.input_tokens, state.usage.output_tokens),
            latency_ms=round((time.monotonic() - started) * 1000),
            prompt_id=prompt.id,
            prompt_version=prompt.version,
        )

    async def _record(self, result: LLMCallResult[T], context: CallContext, *, cached: bool) -> None:
        record = LLMCallRecord(
            context=context,
            tier=result.tier,
            model=result.model,
            prompt_id=result.prompt_id,
            prompt_version=result.prompt_version,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
            latency_ms=result.latency_ms,
            attempts=result.attempts,
            success=result.success,
            cached=cached,
        )
        await self._safe_record(record)

    async def _safe_record(self, record: LLMCallRecord) -> None:
        # Losing one usage row must not lose the decision the call produced; the failure is logged loudly.
        try:
            await self._recorder.record(record)
        except FinRPAError as exc:
            logger.error("LLM usage was not recorded: %s", exc.message)
