"""The provider port: one chat completion in, text and token usage out, faults as :class:`ProviderFault`.

Adapters raise ProviderFault for everything a retry may cure or that belongs to this one request (timeouts,
connection errors, 429, 5xx, a rejected request, an empty reply) and
:class:`~finrpa.llm.errors.LLMProviderRejected` for configuration faults (bad key, unknown model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class CompletionRequest:
    model: str
    system: str
    messages: tuple[ChatMessage, ...]
    max_output_tokens: int
    temperature: float
    json_schema: dict[str, Any] | None = None  # the reply's schema, for providers' JSON/schema modes
    schema_name: str = "reply"


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    model: str
    truncated: bool = False  # the provider stopped at the output token limit


class FaultKind(StrEnum):
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    BAD_REQUEST = "bad_request"
    EMPTY_REPLY = "empty_reply"
    INVALID_RESPONSE = "invalid_response"


_NOT_RETRYABLE = frozenset({FaultKind.BAD_REQUEST})


@dataclass
class ProviderFault(Exception):
    """A fault of one request; ``retry_after_s`` is the provider's Retry-After when it sent one."""

    kind: FaultKind
    message: str
    retry_after_s: float | None = None
    status_code: int | None = field(default=None)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    @property
    def retryable(self) -> bool:
        return self.kind not in _NOT_RETRYABLE


class LLMProvider(Protocol):
    """A chat-completion endpoint. ``configured`` is False only for the no-LLM adapter."""

    name: str

    @property
    def configured(self) -> bool: ...

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def aclose(self) -> None: ...
