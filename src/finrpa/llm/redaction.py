"""Last line of defence for secrets: known secret values are replaced before any text leaves for an LLM.

Secrets should only ever reach a prompt as placeholders (``{{password}}``); this guard runs on every
outgoing message anyway and replaces the literal value and its URL-encoded forms.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"
# Shorter values would also match ordinary text everywhere; no credential is this short.
MIN_SECRET_CHARS = 3


def redact_secrets(text: str, known_secret_values: Iterable[str]) -> str:
    """``text`` with every known secret value (and its URL-encoded forms) replaced by ``[REDACTED]``."""
    variants = {
        variant
        for value in known_secret_values
        if len(value) >= MIN_SECRET_CHARS
        for variant in (value, quote(value, safe=""), quote_plus(value))
    }
    for variant in sorted(variants, key=len, reverse=True):
        text = text.replace(variant, REDACTED)
    return text


def contains_secret(text: str, known_secret_values: Iterable[str]) -> bool:
    """True when ``text`` holds any known secret value (used to refuse, not to clean)."""
    return redact_secrets(text, known_secret_values) != text
