"""Make endpoints and error texts safe to store and print.

Robot URLs carry their access key in the query (WeCom ``?key=``, DingTalk ``?access_token=``) and generic
webhooks often carry a token in the path, so an endpoint is only ever shown as ``scheme://host[:port]/…``.
Error texts are scrubbed of every secret value known to the sender before they are stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

MAX_ERROR_CHARS = 500
_MIN_SECRET_CHARS = 4  # shorter values would blank out ordinary words
_TOKEN_SEGMENT_CHARS = 16  # a path segment this long is treated as a token (Slack-style hook paths)


def mask_endpoint(url: str) -> str:
    """``https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…`` → ``https://qyapi.weixin.qq.com/…``."""
    if url.startswith("secret://"):
        return url  # a reference names the secret; it is not the secret
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return "<invalid URL>"
    host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    tail = "/…" if (parts.path not in ("", "/") or parts.query) else "/"
    return f"{parts.scheme}://{host}{tail}"


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that may be credentials: query values and token-like path segments."""
    parts = urlsplit(url)
    values = [value for _, value in parse_qsl(parts.query, keep_blank_values=False)]
    tokens = [segment for segment in parts.path.split("/") if len(segment) >= _TOKEN_SEGMENT_CHARS]
    return [url, *values, *tokens]


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Replace every occurrence of a secret value in ``text`` with ``***`` and bound the length."""
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_CHARS}, key=len, reverse=True):
        text = text.replace(secret, "***")
    if len(text) > MAX_ERROR_CHARS:
        text = text[: MAX_ERROR_CHARS - 1] + "…"
    return text
