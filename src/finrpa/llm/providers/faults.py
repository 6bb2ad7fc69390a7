"""Translate the official SDKs' exceptions (openai and anthropic share their shape) into provider faults."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import anthropic
import openai

from finrpa.llm.errors import LLMProviderRejected
from finrpa.llm.providers.base import FaultKind, ProviderFault

_CONFIG_STATUSES = {
    401: "rejected the API key",
    403: "refused access",
    404: "does not know the model or path",
}


def translate_sdk_error(exc: Exception, provider: str, model: str, timeout_s: float) -> ProviderFault:
    """The ProviderFault for an SDK exception; raises LLMProviderRejected for configuration faults."""
    if isinstance(exc, openai.APITimeoutError | anthropic.APITimeoutError):
        return ProviderFault(FaultKind.TIMEOUT, f"{provider} did not answer within {timeout_s:g}s")
    if isinstance(exc, openai.APIConnectionError | anthropic.APIConnectionError):
        return ProviderFault(FaultKind.CONNECTION, f"could not connect to {provider}: {exc}")
    if isinstance(exc, openai.APIStatusError | anthropic.APIStatusError):
        return _status_fault(exc.status_code, exc.response.headers, str(exc), provider, model)
    return ProviderFault(FaultKind.INVALID_RESPONSE, f"{provider} sent a response the SDK could not read: {exc}")


def _status_fault(status: int, headers: Mapping[str, str], detail: str, provider: str, model: str) -> ProviderFault:
    if status in _CONFIG_STATUSES:
        raise LLMProviderRejected(
            f"The LLM provider {provider} {_CONFIG_STATUSES[status]} (HTTP {status}, model {model!r}). "
            "Check FINRPA_LLM_API_KEY, FINRPA_LLM_BASE_URL and the FINRPA_LLM_MODEL_* settings."
        )
    short = detail.splitlines()[0][:300]
    if status == 429:
        retry_after = parse_retry_after(headers.get("retry-after"))
        return ProviderFault(
            FaultKind.RATE_LIMITED, f"{provider} is rate limiting (HTTP 429): {short}", retry_after, status
        )
    if status >= 500 or status in (408, 409):
        return ProviderFault(FaultKind.SERVER_ERROR, f"{provider} failed (HTTP {status}): {short}", None, status)
    return ProviderFault(
        FaultKind.BAD_REQUEST, f"{provider} refused the request (HTTP {status}): {short}", None, status
    )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
