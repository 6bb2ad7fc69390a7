"""HTTP API assembly: ``create_app(settings)`` builds the FastAPI app under ``/api/v1``.

This module is the ONE place errors become HTTP responses (RFC 9457 ``application/problem+json``):

* :class:`~finrpa.exceptions.FinRPAError` → its ``http_status``, ``code`` and ``retryable``, its message as
  ``detail``. Other organisations' objects are invisible to the caller's tenant scope, so they are a plain
  404 ``not_found`` whose body names nothing of theirs (not even the id asked for: path values are elided).
* request validation → 422 ``validation_failed`` with one entry per invalid input;
* unknown routes and methods → 404 / 405 problems;
* a database that cannot be reached → 503 ``database_unavailable`` (retryable); a unique-key race → 409;
* anything else → 500 ``internal_error`` with no internals, logged with the request id.

The lifespan opens the database (migrating it first in development), starts the embedded run worker and the
notification dispatcher, and stops them cleanly. The built dashboard (``web/dist``) is served at ``/`` with
SPA fallback. ``python -m finrpa.api --openapi web/openapi.json`` writes the OpenAPI document.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import json
import logging
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from fastapi.routing import iter_route_contexts
from sqlalchemy.exc import IntegrityError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

import finrpa
from finrpa.audit.checkpointing import periodic_checkpoints
from finrpa.audit.service import AuditService
from finrpa.bootstrap import open_app
from finrpa.config import Settings, get_settings
from finrpa.exceptions import ConfigurationError, FinRPAError, NotFoundError
from finrpa.http import health
from finrpa.http.middleware import RequestContextMiddleware, current_request_id
from finrpa.http.problems import FieldProblem, Problem, make_problem, problem_response
from finrpa.http.state import ApiState, install_state
from finrpa.http.web import mount_web
from finrpa.http.worker import DurableQueue, EmbeddedWorker
from finrpa.identity.auth import AuthService
from finrpa.identity.dependencies import install_auth
from finrpa.kit.heap import freeze_startup_heap
from finrpa.notify.dispatcher import run_dispatcher
from finrpa.objectstore.factory import local_store_from_settings
from finrpa.objectstore.local import LocalObjectStore
from finrpa.objectstore.router import local_object_store
from finrpa.objectstore.router import router as objects_router

logger = logging.getLogger(__name__)

API_PREFIX = "/api/v1"
OPENAPI_PATH = f"{API_PREFIX}/openapi.json"
DISPATCHER_STOP_TIMEOUT_S = 10.0

# Domain routers mounted under /api/v1, in the order they appear in the OpenAPI document.
DOMAIN_ROUTERS: tuple[str, ...] = (
    "finrpa.identity.router",
    "finrpa.identity.admin_router",
    "finrpa.workflows.router",
    "finrpa.runs.router",
    "finrpa.approvals.router",
    "finrpa.policy.router",
    "finrpa.audit.router",
    "finrpa.vault.router",
    "finrpa.dashboard.router",
)


@dataclass(frozen=True)
class ApiOptions:
    """What the process runs besides the routes."""

    worker: bool = True  # execute runs created through the API in this process
    queue: bool = False  # without the embedded worker: put runs on the durable queue of `finrpa worker`
    dispatcher: bool = True  # deliver queued notifications
    auto_migrate: bool | None = None  # None: only with FINRPA_ENV=development
    web_dist: Path | None = None  # the built dashboard; None: <repository>/web/dist when it exists


def create_app(settings: Settings | None = None, options: ApiOptions | None = None) -> FastAPI:
    """The FinRPA API application (nothing is opened until its lifespan starts)."""
    settings = settings or get_settings()
    options = options or ApiOptions()
    app = FastAPI(
        title="FinRPA API",
        version=finrpa.__version__,
        description=_DESCRIPTION,
        openapi_url=OPENAPI_PATH,
        docs_url=f"{API_PREFIX}/docs",
        redoc_url=None,
        lifespan=_lifespan(settings, options),
    )
    app.add_middleware(RequestContextMiddleware, on_unhandled=_unhandled_response, api_prefix=API_PREFIX)
    _install_error_mapping(app)
    app.include_router(health.router)
    app.include_router(_api_router())
    app.include_router(objects_router, dependencies=[Depends(_ascii_link_signature)])
    app.dependency_overrides[local_object_store] = _object_store_for(settings)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    mount_web(app, options.web_dist, api_prefix=API_PREFIX)
    return app


def _api_router() -> APIRouter:
    api = APIRouter(prefix=API_PREFIX)
    for module_name in DOMAIN_ROUTERS:
        if importlib.util.find_spec(module_name) is None:
            logger.info("router not present in this build", extra={"module": module_name})
            continue
        router = getattr(importlib.import_module(module_name), "router", None)
        if not isinstance(router, APIRouter):
            raise ConfigurationError(f"{module_name} must define `router = APIRouter(...)` to be mounted.")
        api.include_router(router)
    return api


def _ascii_link_signature(sig: str = Query("", max_length=100)) -> None:
    """Refuse a signature that cannot be one (base64url) before the link is checked in constant time."""
    if not _LINK_SIGNATURE.fullmatch(sig):
        raise NotFoundError("This download link is not valid. Ask FinRPA for a new link.", code="invalid_link")


_LINK_SIGNATURE = re.compile(r"[A-Za-z0-9_-]{1,100}")


def _object_store_for(settings: Settings) -> Any:
    def store() -> LocalObjectStore:
        return local_store_from_settings(settings)

    return store


# -- lifespan --------------------------------------------------------------------------------------------


def _lifespan(settings: Settings, options: ApiOptions) -> Any:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        migrate = settings.env == "development" if options.auto_migrate is None else options.auto_migrate
        async with open_app(settings, auto_migrate=migrate) as opened:
            audit = AuditService.from_settings(settings)
            state = ApiState(settings=settings, database=opened.database, audit=audit, migrations_at_head=True)
            install_state(app, state)
            install_auth(app, AuthService(opened.database.sessions, settings))
            if options.worker:
                state.worker = EmbeddedWorker(settings, opened.database, audit)
                freeze_startup_heap()  # set up: full collections during runs scan only what runs create
                await state.worker.start()
            elif options.queue:
                state.queue = DurableQueue(settings)
            checkpoint_every = settings.audit_checkpoint_interval_s if options.worker else 0
            async with (
                _background_dispatcher(state, enabled=options.dispatcher),
                periodic_checkpoints(audit, opened.database, checkpoint_every),
            ):
                try:
                    yield
                finally:
                    if state.worker is not None:
                        await state.worker.close()
                    if state.queue is not None:
                        state.queue.close()

    return lifespan


@asynccontextmanager
async def _background_dispatcher(state: ApiState, *, enabled: bool) -> AsyncIterator[None]:
    if not enabled:
        yield
        return
    stop = asyncio.Event()
    task = asyncio.create_task(run_dispatcher(state.database.sessions, stop), name="finrpa-notify-dispatcher")
    try:
        yield
    finally:
        stop.set()
        try:
            await asyncio.wait_for(task, timeout=DISPATCHER_STOP_TIMEOUT_S)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


# -- errors: the one mapping --------------------------------------------------------------------------------


def _install_error_mapping(app: FastAPI) -> None:
    app.add_exception_handler(FinRPAError, _finrpa_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(OperationalError, _database_error)  # type: ignore[arg-type]
    app.add_exception_handler(IntegrityError, _integrity_error)  # type: ignore[arg-type]


async def _finrpa_error(request: Request, exc: FinRPAError) -> Response:
    if exc.http_status >= 500:
        logger.error("request failed", extra={"request_id": current_request_id(), "code": exc.code})
    headers = {"WWW-Authenticate": 'Bearer realm="finrpa"'} if exc.http_status == 401 else None
    if exc.retryable and exc.http_status in (429, 503):
        headers = {"Retry-After": "60"}
    detail = _without_path_values(exc.message, request) if isinstance(exc, NotFoundError) else exc.message
    problem = make_problem(exc.http_status, detail, exc.code, retryable=exc.retryable, request_id=current_request_id())
    return problem_response(problem, headers)


def _without_path_values(message: str, request: Request) -> str:
    """A 404 never repeats the ids of the path: the same answer whether or not another organisation has them."""
    for value in sorted(map(str, request.path_params.values()), key=len, reverse=True):
        if len(value) >= 3:
            message = message.replace(value, "<id>")
    return message


async def _validation_error(_request: Request, exc: RequestValidationError) -> Response:
    errors = [_field_problem(error) for error in exc.errors()]
    summary = "; ".join(f"{e.location}: {e.message}" for e in errors[:5])
    detail = f"The request is not valid ({summary}). Correct these inputs and send it again."
    problem = make_problem(422, detail, "validation_failed", request_id=current_request_id(), errors=errors)
    return problem_response(problem)


def _field_problem(error: Any) -> FieldProblem:
    location = ".".join(str(part) for part in error.get("loc", ()))
    return FieldProblem(location=location or "request", message=str(error.get("msg", "invalid")))


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    detail, code = _HTTP_DETAILS.get(exc.status_code, (str(exc.detail), "http_error"))
    if exc.status_code == 404:
        detail = f"There is no {request.method} {request.url.path}; see {OPENAPI_PATH} for the routes."
    problem = make_problem(exc.status_code, detail, code, request_id=current_request_id())
    return problem_response(problem, dict(exc.headers) if exc.headers else None)


_HTTP_DETAILS = {
    404: ("", "not_found"),
    405: ("This route does not accept this method; see the API document for its methods.", "method_not_allowed"),
    406: ("The server cannot produce the media type asked for in Accept.", "not_acceptable"),
    413: ("The request body is too large.", "payload_too_large"),
    415: ("Send the body as application/json.", "unsupported_media_type"),
}


async def _database_error(_request: Request, exc: OperationalError) -> Response:
    logger.warning("database unavailable", extra={"request_id": current_request_id(), "error": type(exc).__name__})
    detail = "The database is not answering right now; try again in a minute."
    problem = make_problem(503, detail, "database_unavailable", retryable=True, request_id=current_request_id())
    return problem_response(problem, {"Retry-After": "30"})


async def _integrity_error(_request: Request, exc: IntegrityError) -> Response:
    logger.info("integrity conflict", extra={"request_id": current_request_id(), "error": type(exc.orig).__name__})
    detail = (
        "This conflicts with data that already exists or with a request made at the same moment; reload and "
        "try again."
    )
    problem = make_problem(409, detail, "conflict", retryable=True, request_id=current_request_id())
    return problem_response(problem)


def _unhandled_response(_exc: Exception, request_id: str) -> Response:
    detail = f"Something went wrong on our side; the error was logged as request {request_id}. Try again later."
    return problem_response(make_problem(500, detail, "internal_error", retryable=True, request_id=request_id))


# -- OpenAPI -------------------------------------------------------------------------------------------------


def _openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes, tags=_TAGS
    )
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(_definitions(Problem))
    components.setdefault("securitySchemes", {})["bearer"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "An access token from /api/v1/auth/login, or an API key (fk_…).",
    }
    _mark_secured(document)
    _hint_single_segment_ids(document, app)
    app.openapi_schema = document
    return document


def _definitions(model: type[Problem]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    definitions = schema.pop("$defs", {})
    return {**definitions, model.__name__: schema}


_PUBLIC_OPERATIONS = frozenset({"/api/v1/auth/login", "/api/v1/auth/refresh"})


def _mark_secured(document: dict[str, Any]) -> None:
    for path, operations in document.get("paths", {}).items():
        if not path.startswith(API_PREFIX) or path in _PUBLIC_OPERATIONS or path.startswith(f"{API_PREFIX}/objects"):
            continue
        for operation in operations.values():
            operation["security"] = [{"bearer": []}]


_ONE_SEGMENT = r"^[^/]+$"


def _hint_single_segment_ids(document: dict[str, Any], app: FastAPI) -> None:
    """Say in the document that a path parameter is one segment (no '/'), unless its route takes a path.

    Routing splits on '/', so an id containing one can never name anything; clients and fuzzers that read
    the pattern stop generating such ids. Routes keep their own, stricter patterns where they declare one.
    """
    multi_segment = {
        (re.sub(r":\w+}", "}", context.path or ""), name)
        for context in iter_route_contexts(app.routes)
        for name in re.findall(r"{(\w+):path}", context.path or "")
    }
    for path, operations in document.get("paths", {}).items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter.get("in") != "path" or (path, parameter.get("name")) in multi_segment:
                    continue
                if schema.get("type") == "string" and "pattern" not in schema:
                    schema["pattern"] = _ONE_SEGMENT


_TAGS = [
    {"name": "auth", "description": "Sign in, refresh, sign out, who am I."},
    {"name": "admin", "description": "Departments, business lines, users, roles, API keys (admins)."},
    {"name": "catalogue", "description": "Workflow templates and skills."},
    {"name": "tasks", "description": "Runs: create, list, watch live, cancel, resolve a step waiting for a person."},
    {"name": "approvals", "description": "Approval queue and decisions."},
    {"name": "audit", "description": "Search, verify and export the audit trail; screenshot links."},
    {"name": "credentials", "description": "The credential vault (write-only)."},
    {"name": "metrics", "description": "Run outcomes, LLM cost and cache hit rate."},
    {"name": "objects", "description": "Downloads behind signed links."},
    {"name": "health", "description": "Liveness, readiness, Prometheus metrics."},
]

_DESCRIPTION = """FinRPA's HTTP API. Sign in at `POST /api/v1/auth/login` and send the access token as
`Authorization: Bearer <token>` (or send an API key the same way). Errors are RFC 9457 problem documents
(`application/problem+json`) with a stable `code`, a `retryable` flag and a `request_id`. Lists are paged with
an opaque `cursor` (pass the `next_cursor` of the previous page). POSTs that create things honour an
`Idempotency-Key` header. Objects of other organisations do not exist for you: they are 404, never 403.
Live run events: `GET /api/v1/tasks/{task_id}/stream` (Server-Sent Events; read it with fetch and the
Authorization header, resume with `Last-Event-ID`)."""


# -- python -m finrpa.api --openapi PATH --------------------------------------------------------------------


def write_openapi(path: Path) -> None:
    document = create_app(Settings(), ApiOptions(worker=False, dispatcher=False)).openapi()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m finrpa.api", description="FinRPA API utilities.")
    parser.add_argument("--openapi", type=Path, required=True, help="Write the OpenAPI document to this file.")
    arguments = parser.parse_args(argv)
    write_openapi(arguments.openapi)
    print(f"Wrote {arguments.openapi}")


if __name__ == "__main__":
    main()
