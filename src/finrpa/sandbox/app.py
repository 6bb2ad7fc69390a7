"""The sandbox ASGI app: landing page, the three portals, static assets, and the realism middleware."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from fastapi import FastAPI, Request
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from finrpa.sandbox import bank, control, insurance, securities
from finrpa.sandbox.auth import login_router
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import PORTALS, USERS
from finrpa.sandbox.render import render
from finrpa.sandbox.runtime import SandboxRuntime
from finrpa.sandbox.sessions import COOKIE_NAMES, Session
from finrpa.sandbox.web import LANG_COOKIE, LoginRequired, page_of, runtime_of

Handler = Callable[[Request], Awaitable[Response]]


def _is_exempt(request: Request) -> bool:
    """Assets, the control surface, the landing page and login posts never fail or wait."""
    path = request.url.path
    if path == "/" or path.startswith(("/static/", "/__sandbox__")) or path.endswith("/captcha.png"):
        return True
    # A failure on a login post could make a client retype (and burn) a password: real portals don't do that.
    return request.method == "POST" and path.endswith(("/login", "/login/otp"))


async def _with_realism(request: Request, call_next: Handler) -> Response:
    runtime = runtime_of(request)
    config = runtime.config
    if _is_exempt(request):
        return _with_cookies(request, await call_next(request))
    if config.latency_ms:
        await asyncio.sleep(config.latency_ms / 1000)
    fault = runtime.faults.draw(config.error_rate)
    runtime.state.count_request(fault is not None)
    if fault == "busy":  # before the handler: nothing happened
        return render("busy.html", page_of(request))
    response = await call_next(request)
    if fault == "http500":  # after the handler: the effect may have happened, the client must reconcile
        return render("error500.html", page_of(request), status_code=500)
    return _with_cookies(request, response)


def _with_cookies(request: Request, response: Response) -> Response:
    session: Session | None = getattr(request.state, "session", None)
    if session is not None and request.cookies.get(COOKIE_NAMES[session.portal]) != session.sid:
        response.set_cookie(
            COOKIE_NAMES[session.portal], session.sid, path=f"/{session.portal}", httponly=True
        )
    wanted = request.query_params.get("lang")
    if wanted in ("zh", "en") and request.cookies.get(LANG_COOKIE) != wanted:
        response.set_cookie(LANG_COOKIE, wanted, path="/")
    return response


async def _login_redirect(request: Request, exc: Exception) -> Response:
    portal = exc.portal if isinstance(exc, LoginRequired) else "bank"
    return RedirectResponse(f"/{portal}/login", status_code=303)


def create_app(
    config: SandboxConfig | None = None,
    clock: Callable[[], float] = time.monotonic,
    now: Callable[[], datetime] = datetime.now,
) -> FastAPI:
    """The sandbox app; `clock` (idle timeouts) and `now` (dates, references) can be replaced in tests."""
    app = FastAPI(title="FinRPA sandbox portals", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.runtime = SandboxRuntime(config or SandboxConfig(), clock, now)
    app.add_middleware(BaseHTTPMiddleware, dispatch=_with_realism)
    app.add_exception_handler(LoginRequired, _login_redirect)
    app.mount("/static", StaticFiles(packages=[("finrpa.sandbox", "static")]), name="static")
    app.include_router(control.router)
    for portal in PORTALS:
        app.include_router(login_router(portal))
    for module in (bank, insurance, securities):
        app.include_router(module.router)

    @app.get("/")
    async def landing(request: Request) -> Response:
        return render("landing.html", page_of(request), users=USERS, config=runtime_of(request).config)

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    return app
