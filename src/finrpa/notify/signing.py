"""Signatures: DingTalk's robot signing, and FinRPA's own webhook signature with its verification.

DingTalk (钉钉) group robot "加签": ``sign = urlencode(base64(HMAC-SHA256(key=secret,
msg=f"{timestamp_ms}\\n{secret}")))``, sent as the ``timestamp`` and ``sign`` query parameters.

FinRPA webhooks carry::

    X-FinRPA-Event: run.failed
    X-FinRPA-Delivery: <idempotency key, the same on every retry of this delivery>
    X-FinRPA-Timestamp: <Unix seconds when this attempt was signed>
    X-FinRPA-Signature: sha256=<hex HMAC-SHA256(key=secret, msg=f"{timestamp}." + raw body bytes)>

A receiver verifies with :func:`verify_webhook_signature` (or the same three lines in any language):
recompute the HMAC over the timestamp, a dot and the *raw* body, compare in constant time, reject a
timestamp more than five minutes away from its clock (replay), then de-duplicate by ``X-FinRPA-Delivery``
because a delivery can arrive twice (a retry after a timeout, or a crash between sending and recording).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SIGNATURE_PREFIX = "sha256="
DEFAULT_TOLERANCE_S = 300


class SignatureInvalidError(ValueError):
    """The webhook signature or timestamp does not verify."""


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    """The base64 ``sign`` value of a DingTalk robot request (before URL encoding)."""
    message = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def dingtalk_signed_url(url: str, secret: str, timestamp_ms: int) -> str:
    """``url`` with ``timestamp`` and URL-encoded ``sign`` appended to its query."""
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True)]
    query += [("timestamp", str(timestamp_ms)), ("sign", dingtalk_sign(secret, timestamp_ms))]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-FinRPA-Signature`` header value for ``body`` sent at ``timestamp`` (Unix seconds)."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify_webhook_signature(
    secret: str,
    *,
    body: bytes,
    timestamp_header: str,
    signature_header: str,
    now: float,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Raise SignatureInvalidError unless the signature matches and the timestamp is fresh."""
    try:
        timestamp = int(timestamp_header)
    except ValueError as exc:
        raise SignatureInvalidError("X-FinRPA-Timestamp is not an integer number of seconds.") from exc
    if abs(now - timestamp) > tolerance_s:
        raise SignatureInvalidError(
            f"X-FinRPA-Timestamp is more than {tolerance_s} s away from this clock; reject it as a replay "
            "or fix the clock."
        )
    expected = webhook_signature(secret, timestamp, body)
    if not hmac.compare_digest(expected.encode(), signature_header.strip().encode()):
        raise SignatureInvalidError("X-FinRPA-Signature does not match the body; the secret or body differs.")
