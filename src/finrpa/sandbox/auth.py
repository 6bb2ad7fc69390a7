"""Login for every portal: password with lockout after five failures, optional captcha and TOTP steps."""

from __future__ import annotations

import pyotp
from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.captcha import captcha_matches, new_captcha_text, render_captcha_png
from finrpa.sandbox.directory import DEMO_PASSWORD, Portal, find_user
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.sessions import Session
from finrpa.sandbox.web import form_value, page_of, runtime_of, session_of


def _login_page(request: Request, portal: Portal, error: str | None = None, username: str = "") -> Response:
    page = page_of(request)
    session = session_of(request, portal)
    notice = session.take_notice()
    return render(
        "login.html",
        page,
        portal=portal,
        error=error,
        notice=page.msg(notice) if notice else None,
        username=username,
        captcha=runtime_of(request).config.captcha,
    )


def _check_password(request: Request, portal: Portal, username: str, password: str) -> str | None:
    """None when the password is right, else the message to show (counting failures, locking at five)."""
    page, state = page_of(request), runtime_of(request).state
    login = f"{portal}:{username}"
    if state.is_locked(login):
        return page.msg("locked")
    user = find_user(portal, username)
    if user is None or password != DEMO_PASSWORD:
        left = state.record_wrong_password(login) if user else state.LOCKOUT_AFTER - 1
        return page.msg("locked") if user and left == 0 else page.msg("bad_login", left=left)
    state.record_good_password(login)
    return None


def _finish_password_step(request: Request, portal: Portal, session: Session, username: str) -> Response:
    if runtime_of(request).config.totp:
        session.pending_user = username
        return RedirectResponse(f"/{portal}/login/otp", status_code=303)
    session.user, session.pending_user = username, None
    session.last_seen = runtime_of(request).clock()
    return RedirectResponse(f"/{portal}/", status_code=303)


def login_router(portal: Portal) -> APIRouter:
    """GET/POST /<portal>/login, /login/otp, /captcha.png and /logout."""
    router = APIRouter(prefix=f"/{portal}")

    @router.get("/login")
    async def login_form(request: Request) -> Response:
        return _login_page(request, portal)

    @router.get("/captcha.png")
    async def captcha_image(request: Request) -> Response:
        session = session_of(request, portal)
        session.captcha = new_captcha_text()
        runtime_of(request).state.note_captcha(portal, session.captcha)
        png = render_captcha_png(session.captcha)
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    @router.post("/login")
    async def login_submit(request: Request) -> Response:
        layout = runtime_of(request).config.layout
        form = await request.form()
        session = session_of(request, portal)
        username = form_value(form, "login.username", layout)
        if runtime_of(request).config.captcha:
            expected, session.captcha = session.captcha, None  # a captcha is good for one attempt
            if not captcha_matches(expected, form_value(form, "login.captcha", layout)):
                return _login_page(request, portal, page_of(request).msg("bad_captcha"), username)
        error = _check_password(request, portal, username, form_value(form, "login.password", layout))
        if error:
            return _login_page(request, portal, error, username)
        return _finish_password_step(request, portal, session, username)

    @router.get("/login/otp")
    async def otp_form(request: Request) -> Response:
        if session_of(request, portal).pending_user is None:
            return RedirectResponse(f"/{portal}/login", status_code=303)
        return render("otp.html", page_of(request), portal=portal, error=None)

    @router.post("/login/otp")
    async def otp_submit(request: Request) -> Response:
        page: PageContext = page_of(request)
        session = session_of(request, portal)
        user = find_user(portal, session.pending_user or "")
        if user is None:
            return RedirectResponse(f"/{portal}/login", status_code=303)
        code = form_value(await request.form(), "login.totp", page.layout)
        if not pyotp.TOTP(user.totp_secret).verify(code, valid_window=1):
            return render("otp.html", page, portal=portal, error=page.msg("bad_totp"))
        session.user, session.pending_user = user.username, None
        session.last_seen = runtime_of(request).clock()
        return RedirectResponse(f"/{portal}/", status_code=303)

    @router.get("/logout")
    async def logout(request: Request) -> Response:
        session = session_of(request, portal)
        session.user = session.pending_user = None
        return RedirectResponse(f"/{portal}/login", status_code=303)

    return router
