"""Request plumbing shared by the three portals: runtime, language, page context, sessions and login guard."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.datastructures import FormData
from starlette.requests import Request

from finrpa.sandbox.directory import DemoUser, Portal, find_user
from finrpa.sandbox.fields import field_name, other_field_name
from finrpa.sandbox.render import PageContext
from finrpa.sandbox.runtime import SandboxRuntime
from finrpa.sandbox.sessions import COOKIE_NAMES, Session
from finrpa.sandbox.wording import Lang

LANG_COOKIE = "sandbox_lang"


class LoginRequired(Exception):
    """Raised by `require_login`; the app answers with a redirect to the portal's login page."""

    def __init__(self, portal: Portal) -> None:
        super().__init__(portal)
        self.portal = portal


def runtime_of(request: Request) -> SandboxRuntime:
    runtime: SandboxRuntime = request.app.state.runtime
    return runtime


def lang_of(request: Request) -> Lang:
    wanted = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE)
    return "en" if wanted == "en" else "zh"


def page_of(request: Request) -> PageContext:
    config = runtime_of(request).config
    return PageContext(lang_of(request), config.layout, config.dynamic_ids)


def session_of(request: Request, portal: Portal) -> Session:
    """This browser's session of `portal`, created (and its cookie set by the middleware) when missing."""
    cached: Session | None = getattr(request.state, "session", None)
    if cached is not None:
        return cached
    session = runtime_of(request).sessions.get_or_create(portal, request.cookies.get(COOKIE_NAMES[portal]))
    request.state.session = session
    return session


@dataclass
class LoggedIn:
    session: Session
    user: DemoUser


def require_login(request: Request, portal: Portal) -> LoggedIn:
    """The logged-in user, or LoginRequired (with "session timed out" when it was idle too long)."""
    runtime = runtime_of(request)
    session = session_of(request, portal)
    if not runtime.sessions.touch(session, runtime.config.session_timeout_s):
        session.notice = "expired"
        raise LoginRequired(portal)
    user = find_user(portal, session.user) if session.user else None
    if user is None:
        session.notice = session.notice or "login_first"
        raise LoginRequired(portal)
    return LoggedIn(session, user)


def form_value(form: FormData, key: str, layout: str) -> str:
    """The submitted value of field `key`, by its current-layout name or else its other-layout name."""
    for name in (field_name(key, layout), other_field_name(key, layout)):
        value = form.get(name)
        if isinstance(value, str):
            return value.strip()
    return ""


def query_value(request: Request, key: str, layout: str) -> str:
    for name in (field_name(key, layout), other_field_name(key, layout)):
        if name in request.query_params:
            return request.query_params[name].strip()
    return ""
