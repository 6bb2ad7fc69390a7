"""One signed or unsigned JSON POST with FinRPA's rules: a timeout, no redirects, https unless allowed,
and errors that say whether a retry can help without ever naming the full endpoint."""

from __future__ import annotations

import json
from collections.abc import Mapping

import httpx

import finrpa
from finrpa.notify.errors import DeliveryFailedError
from finrpa.notify.masking import mask_endpoint
from finrpa.notify.notifiers.base import SendContext

USER_AGENT = f"FinRPA-Notify/{finrpa.__version__}"
_RETRYABLE_STATUS = frozenset({408, 425, 429})
_BODY_SNIPPET_CHARS = 200


def json_bytes(document: object) -> bytes:
    """Compact UTF-8 JSON (Chinese stays readable; the exact bytes are what a webhook signature covers)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def truncate_utf8(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes, on a character boundary, marked with …."""
    encoded = text.encode()
    if len(encoded) <= max_bytes:
        return text
    return encoded[: max_bytes - len("…".encode())].decode(errors="ignore") + "…"


async def post_json(
    context: SendContext, url: str, body: bytes, headers: Mapping[str, str] | None = None
) -> httpx.Response:
    """POST ``body`` to ``url``; return the 2xx response or raise DeliveryFailedError."""
    masked = mask_endpoint(url)
    _check_scheme(url, masked, context.allow_http)
    request_headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT}
    request_headers.update(headers or {})
    try:
        response = await context.http.post(
            url, content=body, headers=request_headers, timeout=context.timeout_s, follow_redirects=False
        )
    except httpx.TimeoutException as exc:
        raise DeliveryFailedError(
            f"{masked} did not answer within {context.timeout_s:g} s.", retryable=True
        ) from exc
    except httpx.TransportError as exc:
        raise DeliveryFailedError(
            f"Could not reach {masked} ({type(exc).__name__}).", retryable=True
        ) from exc
    if not response.is_success:
        raise _status_error(response, masked)
    return response


def check_robot_reply(response: httpx.Response, masked: str, retryable_codes: frozenset[int]) -> None:
    """WeCom and DingTalk answer HTTP 200 with ``{"errcode": 0}`` on success and another code otherwise."""
    try:
        reply = response.json()
    except ValueError as exc:
        raise DeliveryFailedError(f"{masked} answered with a body that is not JSON.", retryable=True) from exc
    code = reply.get("errcode") if isinstance(reply, dict) else None
    if code == 0:
        return
    message = str(reply.get("errmsg", "")) if isinstance(reply, dict) else ""
    raise DeliveryFailedError(
        f"{masked} refused the message: errcode {code} {message[:_BODY_SNIPPET_CHARS]}".rstrip()
        + ". Check the robot URL, its secret and its security settings.",
        retryable=isinstance(code, int) and code in retryable_codes,
    )


def _check_scheme(url: str, masked: str, allow_http: bool) -> None:
    if url.startswith("https://") or (allow_http and url.startswith("http://")):
        return
    raise DeliveryFailedError(
        f"{masked} is not an https URL. Use https, or set FINRPA_NOTIFY_ALLOW_HTTP=true for an internal "
        "endpoint you trust.",
        retryable=False,
    )


def _status_error(response: httpx.Response, masked: str) -> DeliveryFailedError:
    status = response.status_code
    retryable = status >= 500 or status in _RETRYABLE_STATUS
    snippet = " ".join(response.text[:_BODY_SNIPPET_CHARS].split())
    hint = "It will be retried." if retryable else "Check the endpoint and its credentials."
    if 300 <= status < 400:
        hint = "Redirects are not followed; configure the final URL."
    detail = f": {snippet}" if snippet else ""
    return DeliveryFailedError(f"{masked} answered HTTP {status}{detail}. {hint}", retryable=retryable)
