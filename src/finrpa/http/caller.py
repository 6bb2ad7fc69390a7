"""The request's caller and unit of work, as FastAPI dependencies.

* ``CurrentUser`` — the authenticated caller (access JWT or API key); its TenantContext is in force for the
  whole request, so every ORM statement is scoped to its organisation and visible departments.
* ``DbSession`` — one transaction per request, opened under that context, committed when the route returns
  (before the response is sent, so a failed commit is an error response) and rolled back on any error.
* ``require(caller, action, resource)`` — the permission chain; a refusal is a 403 problem.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.engine import unit_of_work
from finrpa.http.state import ApiState, api_state
from finrpa.identity.auth import Authenticated
from finrpa.identity.dependencies import authenticated
from finrpa.identity.permissions import Action, Resource, decide_permission

CurrentUser = Annotated[Authenticated, Depends(authenticated)]
State = Annotated[ApiState, Depends(api_state)]


async def request_session(state: State, _caller: CurrentUser) -> AsyncIterator[AsyncSession]:
    """One unit of work for the request, begun inside the caller's tenant context."""
    async with unit_of_work(state.database.sessions) as session:
        yield session


DbSession = Annotated[AsyncSession, Depends(request_session, scope="function")]


def require(caller: Authenticated, action: Action, resource: Resource) -> None:
    """Raise PermissionDeniedError (403) with the chain's reason unless the caller may act."""
    decide_permission(caller.principal, action, resource).require()


def allowed(caller: Authenticated, action: Action, resource: Resource) -> bool:
    return decide_permission(caller.principal, action, resource).allowed
