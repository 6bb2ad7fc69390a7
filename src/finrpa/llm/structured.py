"""Structured output: the JSON Schema instruction, cleaning, parsing and validation, and the result type.

The LLM proposes; this module decides whether the proposal is well-formed. ``clean_llm_response`` removes
what models wrap around JSON (code fences, reasoning blocks, prose, whitespace) and keeps the outermost JSON
object; ``parse_and_validate`` turns it into the caller's Pydantic model or raises
:class:`~finrpa.llm.errors.StructuredOutputError` with a sentence that is also fed back to the model.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import lru_cache
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from finrpa.llm.errors import StructuredOutputError
from finrpa.llm.prompts import load_prompt
from finrpa.llm.tiers import Tier

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?(.*?)```", re.DOTALL)
_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_EXCERPT_CHARS = 200
INSTRUCTION_PROMPT_ID = "structured_output.instruction"


class TokenUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class LLMCallResult(BaseModel, Generic[T]):
    """The outcome of one structured call; provider faults end here, they are never raised.

    ``needs_human`` is set after the last failed attempt: the run layer moves the task to NEEDS_HUMAN and
    alerts, showing ``raw_response`` and every message in ``errors``.
    """

    success: bool
    data: T | None = None
    raw_response: str | None = None
    attempts: int
    errors: list[str] = Field(default_factory=list)
    needs_human: bool = False
    model: str
    tier: Tier
    usage: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: Decimal = Decimal(0)
    latency_ms: int = 0
    prompt_id: str
    prompt_version: int

    def unwrap(self) -> T:
        """The validated data; raises StructuredOutputError naming every failure when there is none."""
        if self.data is None:
            raise StructuredOutputError(
                f"The LLM gave no usable answer after {self.attempts} attempt(s): " + "; ".join(self.errors)
            )
        return self.data


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema that the model's reply must satisfy."""
    return model.model_json_schema()


@lru_cache(maxsize=256)
def schema_instruction(model: type[BaseModel]) -> str:
    """The strict instruction appended to the system prompt, with the schema embedded (a versioned prompt)."""
    schema = json.dumps(output_schema(model), ensure_ascii=False, indent=1)
    return load_prompt(INSTRUCTION_PROMPT_ID).render({"schema": schema}).system


def clean_llm_response(raw: str) -> str:
    """The outermost JSON object inside ``raw``, or the stripped text when none parses.

    Handles code fences (with or without a language tag), ``<think>`` reasoning blocks, prose before and
    after the object, a byte-order mark and surrounding whitespace.
    """
    text = _REASONING.sub("", raw.replace("\ufeff", "")).strip()
    if text.startswith("{") and _is_json_object(text):
        return text  # the common case: the model did as it was told
    for candidate in _candidates(text):
        found = _first_json_object(candidate)
        if found is not None:
            return found
    fenced = _FENCE.search(text)
    return (fenced.group(2) if fenced else text).strip()


def parse_and_validate(raw: str, model: type[T]) -> T:
    """Clean, parse and validate ``raw`` as ``model``; StructuredOutputError says what was wrong."""
    cleaned = clean_llm_response(raw)
    if not cleaned:
        raise StructuredOutputError("The reply was empty; a JSON object was expected.")
    try:
        value = json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise StructuredOutputError(
            f"The reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            f"it began with: {_excerpt(cleaned)}"
        ) from exc
    if not isinstance(value, dict):
        raise StructuredOutputError(f"The reply is JSON but not an object (it is a {type(value).__name__}).")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"The JSON does not match the {model.__name__} schema: {_validation_summary(exc)}"
        ) from exc


def _candidates(text: str) -> list[str]:
    fenced = [match.group(2) for match in _FENCE.finditer(text)]
    return [*fenced, text]


def _first_json_object(text: str) -> str | None:
    """The first balanced ``{...}`` that parses as a JSON object, scanning from left to right."""
    start = text.find("{")
    while start != -1:
        end = _balanced_end(text, start)
        if end is not None:
            candidate = text[start : end + 1]
            if _is_json_object(candidate):
                return candidate
        start = text.find("{", start + 1)
    return None


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except json.JSONDecodeError:
        return False


def _balanced_end(text: str, start: int) -> int | None:
    """Index of the brace closing the one at ``start``, ignoring braces inside JSON strings."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _validation_summary(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:8]:
        where = ".".join(str(item) for item in error["loc"]) or "(root)"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat[:_EXCERPT_CHARS] + ("…" if len(flat) > _EXCERPT_CHARS else ""))
