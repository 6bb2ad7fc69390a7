"""The test-only control surface, /__sandbox__/state, /reset and /config: 404 unless expose_state is on."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import ValidationError
from starlette.responses import JSONResponse, Response

from finrpa.sandbox.web import runtime_of

router = APIRouter(prefix="/__sandbox__")
_NOT_FOUND = {"detail": "Not Found"}


def _exposed(request: Request) -> bool:
    return runtime_of(request).config.expose_state


@router.get("/state")
async def state(request: Request) -> Response:
    """Everything submitted so far, failure counts, lockouts, the last captchas and the switches."""
    if not _exposed(request):
        return JSONResponse(_NOT_FOUND, status_code=404)
    runtime = runtime_of(request)
    body: dict[str, Any] = runtime.state.snapshot().model_dump()
    body["config"] = runtime.config.model_dump()
    return JSONResponse(body)


@router.post("/reset")
async def reset(request: Request) -> Response:
    """Forget submissions, failure counts, lockouts and sessions."""
    if not _exposed(request):
        return JSONResponse(_NOT_FOUND, status_code=404)
    runtime_of(request).reset()
    return JSONResponse({"reset": True})


@router.post("/config")
async def change_config(request: Request) -> Response:
    """Change switches at runtime, e.g. {"layout": "v2", "error_rate": 0.1}."""
    if not _exposed(request):
        return JSONResponse(_NOT_FOUND, status_code=404)
    changes = await request.json()
    if not isinstance(changes, dict):
        return JSONResponse({"detail": "Send a JSON object of switches to change."}, status_code=400)
    try:
        config = runtime_of(request).set_config(changes)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return JSONResponse({"detail": f"Switches not changed: {problems}."}, status_code=400)
    return JSONResponse(config.model_dump())
