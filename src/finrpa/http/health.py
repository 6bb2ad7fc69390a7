"""Liveness, readiness and Prometheus metrics: the routes that need no sign-in.

``/healthz`` says the process answers. ``/readyz`` says it can serve: the database answers and its schema is
at the migrations' heads (checked once, then remembered: a running schema does not go back). ``/metrics`` is
the Prometheus text format of this process's registry.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel

import finrpa
from finrpa.db import migrate
from finrpa.db.engine import check_reachable
from finrpa.exceptions import DatabaseUnavailableError
from finrpa.http.state import state_of

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class Readiness(BaseModel):
    ready: bool
    database: Literal["ok", "unreachable", "not started"]
    migrations: Literal["at head", "behind", "unknown"]
    detail: str = ""


@router.get("/healthz", summary="Liveness: the process answers")
async def healthz() -> Health:
    return Health(status="ok", version=finrpa.__version__)


@router.get(
    "/readyz",
    summary="Readiness: database reachable and migrations at head",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready; the body says why."}},
)
async def readyz(request: Request) -> Readiness | JSONResponse:
    state = state_of(request.app)
    if state is None:
        return _not_ready(Readiness(ready=False, database="not started", migrations="unknown"))
    try:
        await check_reachable(state.database.engine)
    except DatabaseUnavailableError as exc:
        return _not_ready(Readiness(ready=False, database="unreachable", migrations="unknown", detail=exc.message))
    if not state.migrations_at_head:
        current = await migrate.migration_state(state.settings.resolved_database_url)
        state.migrations_at_head = current.up_to_date
    if not state.migrations_at_head:
        detail = "The database schema is behind this version of FinRPA; run `finrpa migrate`."
        return _not_ready(Readiness(ready=False, database="ok", migrations="behind", detail=detail))
    return Readiness(ready=True, database="ok", migrations="at head")


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


def _not_ready(readiness: Readiness) -> JSONResponse:
    return JSONResponse(readiness.model_dump(mode="json"), status_code=503)
