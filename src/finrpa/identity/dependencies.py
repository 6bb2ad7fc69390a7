"""FastAPI dependency that authenticates a request and binds its TenantContext for the request's duration.

Wire it once::

    install_auth(app, AuthService(database.sessions, settings))

    @router.get("/runs")
    async def list_runs(auth: Authenticated = Depends(authenticated)) -> ...:
        ...  # every ORM query here is scoped to auth.principal's organisation and departments

Errors are FinRPAErrors (401 AuthenticationError, 429 LoginRateLimitedError) for api.py to map.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import FastAPI, Request

from finrpa.exceptions import ConfigurationError
from finrpa.identity.auth import Authenticated, AuthService
from finrpa.identity.errors import AuthenticationError
from finrpa.tenancy.context import use_tenant

_STATE_ATTRIBUTE = "finrpa_auth_service"


def install_auth(app: FastAPI, service: AuthService) -> None:
    setattr(app.state, _STATE_ATTRIBUTE, service)


def auth_service(request: Request) -> AuthService:
    service = getattr(request.app.state, _STATE_ATTRIBUTE, None)
    if not isinstance(service, AuthService):
        raise ConfigurationError("Authentication is not set up: call finrpa.identity.install_auth(app, service).")
    return service


def bearer_credential(request: Request) -> str:
    scheme, _, credential = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not credential.strip():
        raise AuthenticationError("Send an 'Authorization: Bearer <access token or API key>' header.")
    return credential.strip()


async def authenticated(request: Request) -> AsyncIterator[Authenticated]:
    """The caller, authenticated; its TenantContext is in force until the response is produced."""
    auth = await auth_service(request).authenticate(bearer_credential(request))
    with use_tenant(auth.principal.tenant_context()):
        yield auth
