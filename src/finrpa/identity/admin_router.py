"""HTTP routes of the organisation's structure (admins): departments, business lines, users, roles, grants,
API keys.

Reading the department and business-line lists is open to every member (forms need them). Users and their
roles are listed for org admins and department admins; every change goes through
:class:`~finrpa.identity.service.DirectoryService`, which decides it with the permission chain (org admins:
everything; department admins: roles in their department). Maker-checker holds: operator and approver on one
membership is a 409.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Response
from pydantic import BaseModel, ConfigDict, Field, SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.exceptions import NotFoundError, PermissionDeniedError
from finrpa.http.caller import CurrentUser, DbSession, State
from finrpa.http.idempotency import Idempotency
from finrpa.http.problems import PROBLEM_RESPONSES
from finrpa.identity.api_keys import ApiKeyService
from finrpa.identity.auth import Authenticated
from finrpa.identity.models import (
    ApiKey,
    BusinessLine,
    BusinessLineMembership,
    Department,
    DepartmentMembership,
    GrantKind,
    Role,
    SpecialGrant,
    User,
)
from finrpa.identity.permissions import Action
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService, NewUser

router = APIRouter(tags=["admin"], responses=PROBLEM_RESPONSES)

Id = Annotated[str, Path(min_length=1, max_length=32)]


class OrgUnitCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=64, description="Letters, digits, '-', '_', '.'.")
    name: str = Field(min_length=1, max_length=200)


class OrgUnit(BaseModel):
    id: str
    code: str
    name: str
    created_at: datetime


class UserCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=64)
    display_name: str = Field("", max_length=200)
    password: SecretStr | None = Field(None, description="Omit for an account that cannot sign in yet.")
    org_admin: bool = False


class Membership(BaseModel):
    department_id: str
    roles: list[Role]


class GrantView(BaseModel):
    id: str
    kind: GrantKind
    department_id: str | None
    expires_at: datetime | None


class UserView(BaseModel):
    id: str
    username: str
    display_name: str
    kind: str
    is_active: bool
    is_org_admin: bool
    locked_until: datetime | None
    last_login_at: datetime | None
    created_at: datetime
    departments: list[Membership]
    business_line_ids: list[str]
    grants: list[GrantView]


class RoleChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    department_id: str = Field(min_length=1, max_length=32)
    role: Role


class BusinessLineChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    business_line_id: str = Field(min_length=1, max_length=32)


class GrantCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: GrantKind
    department_id: str | None = Field(None, max_length=32, description="Omit for every department.")
    expires_at: datetime | None = None


class ApiKeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(min_length=1, max_length=32, description="The (service) user the key acts as.")
    name: str = Field(min_length=1, max_length=200)
    scopes: list[Action] = Field(min_length=1, description="What the key may do, on top of the user's rights.")
    expires_at: datetime | None = None


class ApiKeyView(BaseModel):
    prefix: str
    name: str
    user_id: str
    scopes: list[str]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


class IssuedKey(ApiKeyView):
    key: str = Field(description="Shown this once: store it now.")


# -- departments and business lines ---------------------------------------------------------------------


@router.get("/departments", summary="Departments of the organisation")
async def list_departments(caller: CurrentUser, session: DbSession) -> list[OrgUnit]:
    departments = await IdentityRepository(session).departments(caller.principal.org_id)
    return [_unit(d) for d in departments]


@router.post("/departments", status_code=201, summary="Create a department (org admins)")
async def create_department(
    body: OrgUnitCreate, caller: CurrentUser, session: DbSession, state: State, idempotency: Idempotency,
    response: Response,
) -> OrgUnit:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    directory = DirectoryService(session, state.settings)
    org_id = caller.principal.org_id
    department = await directory.create_department(caller.principal, org_id, code=body.code, name=body.name)
    unit = _unit(department)
    await _created(idempotency, session, body, unit, f"/api/v1/departments/{department.id}", response)
    return unit


@router.get("/departments/{department_id}", summary="One department")
async def get_department(department_id: Id, _caller: CurrentUser, session: DbSession) -> OrgUnit:
    return _unit(await _department(session, department_id))


@router.get("/business-lines", summary="Business lines of the organisation")
async def list_business_lines(caller: CurrentUser, session: DbSession) -> list[OrgUnit]:
    query = select(BusinessLine).where(BusinessLine.org_id == caller.principal.org_id).order_by(BusinessLine.code)
    return [_unit(line) for line in (await session.scalars(query)).all()]


@router.post("/business-lines", status_code=201, summary="Create a business line (org admins)")
async def create_business_line(
    body: OrgUnitCreate, caller: CurrentUser, session: DbSession, state: State, idempotency: Idempotency,
    response: Response,
) -> OrgUnit:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    directory = DirectoryService(session, state.settings)
    org_id = caller.principal.org_id
    line = await directory.create_business_line(caller.principal, org_id, code=body.code, name=body.name)
    unit = _unit(line)
    await _created(idempotency, session, body, unit, f"/api/v1/business-lines/{line.id}", response)
    return unit


@router.get("/business-lines/{business_line_id}", summary="One business line")
async def get_business_line(business_line_id: Id, _caller: CurrentUser, session: DbSession) -> OrgUnit:
    line = await session.get(BusinessLine, business_line_id)
    if line is None:
        raise NotFoundError("No such business line in your organisation.")
    return _unit(line)


# -- users, roles, grants ---------------------------------------------------------------------------------


@router.get("/users", summary="Users with their roles (org admins and department admins)")
async def list_users(caller: CurrentUser, session: DbSession) -> list[UserView]:
    _require_user_admin(caller)
    users = await IdentityRepository(session).users(caller.principal.org_id)
    return [await _user_view(session, user) for user in users]


@router.post("/users", status_code=201, summary="Create a user (org admins)")
async def create_user(
    body: UserCreate, caller: CurrentUser, session: DbSession, state: State, idempotency: Idempotency,
    response: Response,
) -> UserView:
    replayed = await idempotency.replay(session, body)
    if replayed is not None:
        return replayed  # type: ignore[return-value]
    password = body.password.get_secret_value() if body.password else None
    new = NewUser(username=body.username, display_name=body.display_name, password=password, org_admin=body.org_admin)
    user = await DirectoryService(session, state.settings).create_user(caller.principal, caller.principal.org_id, new)
    view = await _user_view(session, user)
    await _created(idempotency, session, body, view, f"/api/v1/users/{user.id}", response)
    return view


@router.get("/users/{user_id}", summary="One user with roles, business lines and grants")
async def get_user(user_id: Id, caller: CurrentUser, session: DbSession) -> UserView:
    user = await _user(session, user_id)
    _require_user_admin(caller, allow_self=user.id)
    return await _user_view(session, user)


@router.post("/users/{user_id}/roles", summary="Grant a role in a department (maker-checker enforced)")
async def grant_role(user_id: Id, body: RoleChange, caller: CurrentUser, session: DbSession, state: State) -> UserView:
    user = await _user(session, user_id)
    department = await _department(session, body.department_id)
    await DirectoryService(session, state.settings).grant_role(caller.principal, user, department, body.role)
    return await _user_view(session, user)


@router.delete("/users/{user_id}/roles/{department_id}/{role}", summary="Revoke a role in a department")
async def revoke_role(
    user_id: Id, department_id: Id, role: Role, caller: CurrentUser, session: DbSession, state: State
) -> UserView:
    user = await _user(session, user_id)
    department = await _department(session, department_id)
    await DirectoryService(session, state.settings).revoke_role(caller.principal, user, department, role)
    return await _user_view(session, user)


@router.post("/users/{user_id}/business-lines", summary="Give a user visibility of a business line")
async def add_business_line(
    user_id: Id, body: BusinessLineChange, caller: CurrentUser, session: DbSession, state: State
) -> UserView:
    user = await _user(session, user_id)
    line = await session.get(BusinessLine, body.business_line_id)
    if line is None:
        raise NotFoundError("No such business line in your organisation.")
    existing = await IdentityRepository(session).business_line_ids(user.id)
    if line.id not in existing:
        await DirectoryService(session, state.settings).add_to_business_line(caller.principal, user, line)
    return await _user_view(session, user)


@router.post("/users/{user_id}/grants", status_code=201, summary="Grant CROSS_DEPT_READ or CROSS_DEPT_APPROVE")
async def grant_special(
    user_id: Id, body: GrantCreate, caller: CurrentUser, session: DbSession, state: State
) -> UserView:
    user = await _user(session, user_id)
    department = await _department(session, body.department_id) if body.department_id else None
    directory = DirectoryService(session, state.settings)
    await directory.grant_special(caller.principal, user, body.kind, department, body.expires_at)
    return await _user_view(session, user)


# -- API keys ---------------------------------------------------------------------------------------------


@router.get("/api-keys", summary="API keys of the organisation (never the keys themselves)")
async def list_api_keys(caller: CurrentUser, session: DbSession, state: State) -> list[ApiKeyView]:
    keys = await ApiKeyService(session, state.settings).list(caller.principal, caller.principal.org_id)
    return [_key_view(key) for key in keys]


@router.post("/api-keys", status_code=201, summary="Create an API key; the key is shown once")
async def create_api_key(body: ApiKeyCreate, caller: CurrentUser, session: DbSession, state: State) -> IssuedKey:
    user = await _user(session, body.user_id)
    issued = await ApiKeyService(session, state.settings).create(
        caller.principal, user, name=body.name, scopes=body.scopes, expires_at=body.expires_at
    )
    return IssuedKey(**_key_view(issued.record).model_dump(), key=issued.key)


@router.delete("/api-keys/{prefix}", summary="Revoke an API key")
async def revoke_api_key(
    prefix: Annotated[str, Path(min_length=1, max_length=24)], caller: CurrentUser, session: DbSession, state: State
) -> ApiKeyView:
    return _key_view(await ApiKeyService(session, state.settings).revoke(caller.principal, prefix))


# -- helpers ----------------------------------------------------------------------------------------------


async def _created(
    idempotency: Idempotency,
    session: AsyncSession,
    body: BaseModel,
    view: BaseModel,
    location: str,
    response: Response,
) -> None:
    await idempotency.remember(session, body, 201, view.model_dump(mode="json"), location)
    response.headers["Location"] = location


def _require_user_admin(caller: Authenticated, *, allow_self: str | None = None) -> None:
    principal = caller.principal
    if principal.is_org_admin or principal.is_super_admin or principal.user_id == allow_self:
        return
    if any(Role.DEPT_ADMIN in roles for roles in principal.department_roles.values()):
        return
    raise PermissionDeniedError("Only org admins and department admins can see users and their roles.")


async def _department(session: AsyncSession, department_id: str) -> Department:
    department = await session.get(Department, department_id)
    if department is None:
        raise NotFoundError("No such department in your organisation.")
    return department


async def _user(session: AsyncSession, user_id: str) -> User:
    user = await session.get(User, user_id)
    if user is None:
        raise NotFoundError("No such user in your organisation.")
    return user


def _unit(unit: Department | BusinessLine) -> OrgUnit:
    return OrgUnit(id=unit.id, code=unit.code, name=unit.name, created_at=unit.created_at)


async def _user_view(session: AsyncSession, user: User) -> UserView:
    memberships = (
        await session.scalars(select(DepartmentMembership).where(DepartmentMembership.user_id == user.id))
    ).all()
    lines = (
        await session.scalars(
            select(BusinessLineMembership.business_line_id).where(BusinessLineMembership.user_id == user.id)
        )
    ).all()
    grants = (await session.scalars(select(SpecialGrant).where(SpecialGrant.user_id == user.id))).all()
    return UserView(
        id=user.id,
        username=user.username,
        display_name=user.display_name,
        kind=user.kind,
        is_active=user.is_active,
        is_org_admin=user.is_org_admin,
        locked_until=user.locked_until,
        last_login_at=user.last_login_at,
        created_at=user.created_at,
        departments=[Membership(department_id=m.department_id, roles=sorted(m.roles())) for m in memberships],
        business_line_ids=sorted(lines),
        grants=[
            GrantView(id=g.id, kind=GrantKind(g.kind), department_id=g.department_id, expires_at=g.expires_at)
            for g in grants
        ],
    )


def _key_view(key: ApiKey) -> ApiKeyView:
    return ApiKeyView(
        prefix=key.prefix,
        name=key.name,
        user_id=key.user_id,
        scopes=list(key.scopes),
        created_at=key.created_at,
        expires_at=key.expires_at,
        revoked_at=key.revoked_at,
        last_used_at=key.last_used_at,
    )
