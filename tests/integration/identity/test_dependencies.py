"""The FastAPI dependency authenticates the bearer and scopes the whole request, thread work included."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import sqlalchemy as sa
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from finrpa.exceptions import FinRPAError
from finrpa.identity import dependencies
from finrpa.identity.auth import Authenticated, AuthService
from finrpa.identity.models import Department, Role
from finrpa.tenancy import current_tenant
from tests.integration.tenancy.support import PASSWORD, Backend, make_org

pytestmark = pytest.mark.asyncio(loop_scope="session")


def build_app(backend: Backend) -> FastAPI:
    app = FastAPI()
    dependencies.install_auth(app, AuthService(backend.db.sessions, backend.settings))

    @app.exception_handler(FinRPAError)
    async def _problem(_request: Request, exc: FinRPAError) -> JSONResponse:
        return JSONResponse({"code": exc.code, "detail": exc.message}, status_code=exc.http_status)

    @app.get("/whoami")
    async def whoami(auth: Authenticated = Depends(dependencies.authenticated)) -> dict[str, object]:
        in_thread = await asyncio.to_thread(current_tenant)
        async with backend.db.sessions() as session:
            departments = (await session.scalars(sa.select(Department.code).order_by(Department.code))).all()
        tenant = current_tenant()
        assert tenant is not None and in_thread == tenant
        return {"user": auth.principal.username, "org": tenant.org_id, "departments": list(departments)}

    return app


async def test_a_signed_in_user_sees_only_their_organisation(backend: Backend) -> None:
    fixture = await make_org(backend, {"olga": (Role.OPERATOR,)})
    await make_org(backend, {"olga": (Role.OPERATOR,)})  # a second bank with the same usernames and codes
    pair = await AuthService(backend.db.sessions, backend.settings).login(fixture.org.slug, "olga", PASSWORD)
    transport = httpx.ASGITransport(app=build_app(backend))
    async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
        response = await client.get("/whoami", headers={"Authorization": f"Bearer {pair.access_token}"})
    assert response.status_code == 200, response.text
    assert response.json() == {"user": "olga", "org": fixture.org_id, "departments": ["ops", "risk"]}
    assert current_tenant() is None


@pytest.mark.parametrize("header", [None, "Basic b2xnYTpwdw==", "Bearer ", "Bearer not-a-token"])
async def test_missing_or_bad_credentials_are_401(backend: Backend, header: str | None) -> None:
    transport = httpx.ASGITransport(app=build_app(backend))
    async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
        response = await client.get("/whoami", headers={"Authorization": header} if header else {})
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
