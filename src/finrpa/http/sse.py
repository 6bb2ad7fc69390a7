"""Server-Sent Events: frame events, send keep-alive comments, and stream them with the right headers.

Clients read the stream with ``fetch`` and an ``Authorization`` header (EventSource cannot send one), and
resume after a disconnect by sending the last ``id`` they saw as ``Last-Event-ID``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import StreamingResponse

SSE_MEDIA_TYPE = "text/event-stream"
KEEPALIVE = b": keep-alive\n\n"


def sse_event(data: Any, *, event: str | None = None, event_id: str | None = None) -> bytes:
    """One SSE frame; ``data`` is sent as compact JSON (multi-line JSON never occurs)."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str))
    return ("\n".join(lines) + "\n\n").encode()


def event_stream(frames: AsyncIterator[bytes]) -> StreamingResponse:
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
    return StreamingResponse(frames, media_type=SSE_MEDIA_TYPE, headers=headers)
