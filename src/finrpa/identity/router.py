"""HTTP routes of sign-in: ``/auth/login``, ``/auth/refresh``, ``/auth/logout``, ``/auth/me``.

Token delivery: the access token (a 15-minute JWT) is returned in the body and sent back by the client in
``Authorization: Bearer``. The refresh token is set as an ``HttpOnly``, ``SameSite=Strict`` cookie scoped to
``/api/v1/auth`` (``Secure`` over HTTPS), out of reach of page scripts. CSRF: every other route authenticates
with the Authorization header, which a browser never adds by itself; the two cookie routes are
``SameSite=Strict`` and refuse a request whose ``Origin`` is not this server. Clients without cookies (scripts)
ask for ``refresh_token_in_body`` at login and send the token in the refresh body — or use an API key.
Each refresh rotates the token; presenting a used one revokes the whole sign-in.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from finrpa.exceptions import PermissionDeniedError
from finrpa.http.caller import CurrentUser, DbSession
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.auth import TokenPair
from finrpa.identity.dependencies import auth_service
from finrpa.identity.errors import AuthenticationError
from finrpa.identity.models import GrantKind, Organization, Role
from finrpa.identity.repository import IdentityRepository

REFRESH_COOKIE = "finrpa_refresh"
COOKIE_PATH = "/api/v1/auth"

router = APIRouter(prefix="/auth", tags=["auth"], responses=PROBLEM_RESPONSES)


class LoginRequest(BaseModel):
    org: str = Field(min_length=1, max_length=64, description="The organisation's slug, e.g. demo-bank.")
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)
    refresh_token_in_body: bool = Field(
        False, description="Also return the refresh token in the body (for clients that do not keep cookies)."
    )


class RefreshRequest(BaseModel):
    refresh_token: str | None = Field(
        None, max_length=200, description="Omit to use the refresh cookie set at sign-in."
    )


class TokenResponse(BaseModel):
    access_token: str
    token_type: str = "Bearer"  # noqa: S105 - the OAuth token type, not a secret
    expires_in: int = Field(description="Seconds until the access token expires.")
    refresh_token: str | None = Field(None, description="Only when asked for; otherwise it is in the cookie.")


class DepartmentRoles(BaseModel):
    department_id: str
    roles: list[Role]


class Grant(BaseModel):
    kind: GrantKind
    department_id: str | None


class Me(BaseModel):
    user_id: str
    username: str
    display_name: str
    org_id: str
    org_slug: str
    org_name: str
    is_org_admin: bool
    is_super_admin: bool
    departments: list[DepartmentRoles]
    business_line_ids: list[str]
    grants: list[Grant]
    api_key_scopes: list[str] | None = Field(None, description="Set when the caller is an API key.")


@router.post("/login", summary="Sign in with organisation, username and password")
async def login(body: LoginRequest, request: Request, response: Response) -> TokenResponse:
    source = request.client.host if request.client else ""
    pair = await auth_service(request).login(body.org, body.username, body.password, source=source)
    return _issue(pair, request, response, in_body=body.refresh_token_in_body)


@router.post("/refresh", summary="Exchange the refresh token (cookie or body) for a new pair")
async def refresh(request: Request, response: Response, body: RefreshRequest | None = None) -> TokenResponse:
    from_body = body is not None and body.refresh_token is not None
    token = body.refresh_token if body is not None and body.refresh_token else request.cookies.get(REFRESH_COOKIE)
    if not from_body:
        _refuse_cross_origin(request)
    if not token:
        raise AuthenticationError("No refresh token: sign in again.")
    pair = await auth_service(request).refresh(token)
    return _issue(pair, request, response, in_body=from_body)


@router.post("/logout", status_code=204, summary="End this sign-in (every token of it stops working)")
async def logout(caller: CurrentUser, request: Request) -> Response:
    if caller.session_id is not None:
        await auth_service(request).logout(caller.session_id, caller.principal.org_id)
    response = Response(status_code=204)
    response.delete_cookie(REFRESH_COOKIE, path=COOKIE_PATH)
    return response


@router.get("/me", summary="Who is signed in, with roles per department")
async def me(caller: CurrentUser, session: DbSession) -> Me:
    principal = caller.principal
    repository = IdentityRepository(session)
    user = await repository.user(principal.user_id)
    org = await session.get(Organization, principal.org_id) if user else None
    if user is None or org is None:
        raise AuthenticationError("This account no longer exists; sign in again.")
    return Me(
        user_id=user.id,
        username=user.username,
        display_name=user.display_name,
        org_id=org.id,
        org_slug=org.slug,
        org_name=org.name,
        is_org_admin=principal.is_org_admin,
        is_super_admin=principal.is_super_admin,
        departments=[
            DepartmentRoles(department_id=dept, roles=sorted(roles))
            for dept, roles in principal.department_roles.items()
        ],
        business_line_ids=sorted(principal.business_line_ids),
        grants=[Grant(kind=g.kind, department_id=g.department_id) for g in principal.grants],
        api_key_scopes=sorted(s.value for s in principal.scopes) if principal.scopes is not None else None,
    )


def _issue(pair: TokenPair, request: Request, response: Response, *, in_body: bool) -> TokenResponse:
    response.set_cookie(
        REFRESH_COOKIE,
        pair.refresh_token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=COOKIE_PATH,
    )
    response.headers["Cache-Control"] = "no-store"
    return TokenResponse(
        access_token=pair.access_token,
        expires_in=pair.expires_in,
        refresh_token=pair.refresh_token if in_body else None,
    )


def _refuse_cross_origin(request: Request) -> None:
    origin = request.headers.get("origin")
    if origin and urlsplit(origin).netloc != request.headers.get("host", request.url.netloc):
        raise PermissionDeniedError(
            "A refresh with the sign-in cookie must come from this server's own pages.", code="cross_origin_refused"
        )
