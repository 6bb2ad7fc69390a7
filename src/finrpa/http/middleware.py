"""The outermost ASGI middleware: a request id for every request, HTTP metrics, and the last line of defence.

An exception nothing else handled becomes the response ``on_unhandled`` builds (api.py: a 500 problem with no
internals), logged with the request id; it is never re-raised into the server. The request id comes from a
sane ``X-Request-ID`` header or is generated, and is echoed on the response.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from finrpa.http.metrics import HTTP_LATENCY, HTTP_REQUESTS

logger = logging.getLogger("finrpa.http")

REQUEST_ID_HEADER = "x-request-id"
_SANE_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
_request_id: ContextVar[str | None] = ContextVar("finrpa_request_id", default=None)

UnhandledHandler = Callable[[Exception, str], Response]


def current_request_id() -> str | None:
    return _request_id.get()


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp, on_unhandled: UnhandledHandler, api_prefix: str = "") -> None:
        self.app = app
        self.on_unhandled = on_unhandled
        self.api_prefix = api_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or uuid.uuid4().hex
        token = _request_id.set(request_id)
        started = time.perf_counter()
        status = {"code": 500, "sent": False}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"], status["sent"] = message["status"], True
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER.encode(), request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:
            logger.exception("unhandled error", extra={"request_id": request_id, "path": scope.get("path")})
            if not status["sent"]:
                await self.on_unhandled(exc, request_id)(scope, receive, send_with_id)
        finally:
            _record(scope, self.api_prefix, int(status["code"]), time.perf_counter() - started)
            _request_id.reset(token)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == REQUEST_ID_HEADER.encode():
            text = value.decode("latin-1")
            return text if _SANE_ID.match(text) else None
    return None


def _record(scope: Scope, api_prefix: str, status: int, seconds: float) -> None:
    route = scope.get("route")
    template = getattr(route, "path", None) or "unmatched"
    if api_prefix and str(scope.get("path", "")).startswith(api_prefix) and not template.startswith(api_prefix):
        template = api_prefix + template  # routers included under the prefix keep their own relative path
    method = scope.get("method", "GET")
    HTTP_REQUESTS.labels(method=method, route=template, status=str(status)).inc()
    HTTP_LATENCY.labels(method=method, route=template).observe(seconds)
