"""The run's refusing proxy: the network-layer half of the egress allowlist.

A run's browser context is given this proxy, with the allowlist as Chromium's proxy bypass list
(:meth:`~finrpa.browser.egress.EgressAllowlist.proxy_bypass`): requests to allowed hosts connect directly, and
every other request of the context — page loads, subresources, fetches, WebSockets, prefetches, from any frame or
worker — is sent here instead, before any DNS lookup. Nothing is ever forwarded: the proxy reads the request head,
reports what was asked for, and answers with a response Chromium cannot use, so the request fails with a network
error (as an aborted one does) and is not retried. If the proxy is gone, the connection is refused: it fails
closed.

Compared with routing the context's requests through Playwright, no allowed request is paused or passed through
the driver (``bench/bench_browser_floor.py`` measures the difference), and WebSockets are covered too. What a
refused request reports: for plain HTTP the URL without its query, whether it was a navigation and its resource
type (from the Sec-Fetch-* headers Chromium sends, else from the Accept header); for a tunnel (HTTPS, WebSocket)
only ``host:port``, which is all a tunnel request names.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

logger = logging.getLogger(__name__)

_HEAD_LIMIT = 16 * 1024
_HEAD_TIMEOUT_S = 10.0
# A status line Chromium rejects (ERR_INVALID_HTTP_RESPONSE, or a failed tunnel): a network error, never retried.
_UNUSABLE = b"FINRPA-EGRESS-REFUSED\r\n\r\n"
_DESTINATIONS = {
    "document": "document",
    "iframe": "document",
    "frame": "document",
    "image": "image",
    "script": "script",
    "style": "stylesheet",
    "font": "font",
    "empty": "fetch",
    "audio": "media",
    "video": "media",
    "track": "texttrack",
    "manifest": "manifest",
    "websocket": "websocket",
}


@dataclass(frozen=True)
class RefusedRequest:
    url: str  # without query or fragment; host:port for a tunnel
    host: str
    resource_type: str
    navigation: bool


def parse_head(head: bytes) -> RefusedRequest | None:
    """What a request head sent to the proxy asks for; None when it is not an HTTP request head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return None
    method, target = parts[0].upper(), parts[1]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        host = host.strip("[]").lower()
        if not host or not port.isdigit():
            return None
        return RefusedRequest(url=f"{host}:{port}", host=host, resource_type="other", navigation=False)
    parts_of = urlsplit(target)
    if parts_of.scheme not in ("http", "ws") or not parts_of.hostname:
        return None
    url = target.split("?", 1)[0].split("#", 1)[0][:300]
    kind, navigation = _classify(headers)
    return RefusedRequest(url=url, host=parts_of.hostname.lower(), resource_type=kind, navigation=navigation)


def _classify(headers: dict[str, str]) -> tuple[str, bool]:
    """(Playwright-style resource type, navigation?) of a request, from the headers Chromium sent."""
    destination = headers.get("sec-fetch-dest")
    if destination is not None:
        return _DESTINATIONS.get(destination, "other"), headers.get("sec-fetch-mode") == "navigate"
    if headers.get("upgrade", "").lower() == "websocket":
        return "websocket", False
    # Chromium sends Sec-Fetch-* only to potentially trustworthy origins; for other plain-HTTP hosts the Accept
    # header tells the kind, and a navigation also asks to be upgraded to HTTPS.
    accept = headers.get("accept", "")
    if accept.startswith("text/html"):
        return "document", headers.get("upgrade-insecure-requests") == "1"
    if accept.startswith("image/"):
        return "image", False
    if accept.startswith("text/css"):
        return "stylesheet", False
    return ("fetch" if accept == "*/*" else "other"), False


class RefusingProxy:
    """A local proxy for one run's browser context that refuses every request it receives and reports it."""

    def __init__(self, on_refused: Callable[[RefusedRequest], None]) -> None:
        self._on_refused = on_refused
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    def report_to(self, on_refused: Callable[[RefusedRequest], None]) -> None:
        """Report refusals to ``on_refused`` from now on."""
        self._on_refused = on_refused

    async def start(self) -> str:
        """Listen on a free loopback port; returns the proxy server address for the browser context."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, limit=_HEAD_LIMIT)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        connections = list(self._connections)
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        self._server = None

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._refuse(reader, writer))
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, TimeoutError):
                head = b""  # a preconnect that never asked, or a head too long to be a browser's
            request = parse_head(head) if head else None
            if request is not None:
                try:
                    self._on_refused(request)
                except Exception:  # a failing listener must not stop the refusal
                    logger.exception("egress.refusal_not_reported")
            with contextlib.suppress(ConnectionError, OSError):
                writer.write(_UNUSABLE)
                await writer.drain()
        finally:
            writer.close()
