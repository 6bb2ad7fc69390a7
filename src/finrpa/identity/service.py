"""Directory management: organisations, departments, business lines, users, roles and grants.

Every change is decided by :func:`finrpa.identity.permissions.decide_permission` for the acting
principal (the CLI acts as ``Principal.platform``). Services flush but never commit; the caller's unit of
work does. Maker-checker is checked here for a clear message and enforced again by the database CHECK.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError, NotFoundError, PermissionDeniedError, ValidationFailedError
from finrpa.identity.errors import MakerCheckerViolationError
from finrpa.identity.models import (
    BusinessLine,
    BusinessLineMembership,
    Department,
    DepartmentMembership,
    GrantKind,
    Organization,
    Role,
    SpecialGrant,
    User,
    UserKind,
)
from finrpa.identity.passwords import check_password_policy, hash_password
from finrpa.identity.permissions import Action, CrossDeptGrant, Principal, Resource, decide_permission
from finrpa.identity.repository import IdentityRepository

MAKER_CHECKER_MESSAGE = (
    "maker-checker: a user cannot be operator and approver in the same department. Give the approver role "
    "to a different user, or revoke the other role first."
)


@dataclass(frozen=True, slots=True)
class NewUser:
    username: str
    display_name: str = ""
    password: str | None = None  # None: the account cannot sign in with a password (yet)
    org_admin: bool = False
    kind: UserKind = UserKind.HUMAN


class DirectoryService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.repo = IdentityRepository(session)

    async def create_organization(self, actor: Principal, *, slug: str, name: str) -> Organization:
        if not actor.is_super_admin:
            raise PermissionDeniedError("Only a platform super admin can create organisations.")
        _check_code(slug, "organisation slug")
        if await self.repo.organization_by_slug(slug) is not None:
            raise ConflictError(f"An organisation with slug {slug!r} already exists; choose another slug.")
        org = Organization(slug=slug, name=name, is_active=True)
        self.session.add(org)
        await self.session.flush()
        return org

    async def organization(self, slug: str) -> Organization:
        org = await self.repo.organization_by_slug(slug)
        if org is None:
            raise NotFoundError(f"No organisation {slug!r}; `finrpa org list` shows the existing ones.")
        return org

    async def create_department(self, actor: Principal, org_id: str, *, code: str, name: str) -> Department:
        self._require(actor, Action.ADMIN, Resource(org_id, kind="organisation"))
        _check_code(code, "department code")
        if await self.repo.department_by_code(org_id, code) is not None:
            raise ConflictError(f"Department {code!r} already exists in this organisation.")
        department = Department(org_id=org_id, code=code, name=name)
        self.session.add(department)
        await self.session.flush()
        return department

    async def create_business_line(self, actor: Principal, org_id: str, *, code: str, name: str) -> BusinessLine:
        self._require(actor, Action.ADMIN, Resource(org_id, kind="organisation"))
        _check_code(code, "business line code")
        if await self.repo.business_line_by_code(org_id, code) is not None:
            raise ConflictError(f"Business line {code!r} already exists in this organisation.")
        line = BusinessLine(org_id=org_id, code=code, name=name)
        self.session.add(line)
        await self.session.flush()
        return line

    async def create_user(self, actor: Principal, org_id: str, new: NewUser) -> User:
        self._require(actor, Action.ADMIN, Resource(org_id, kind="organisation"))
        _check_code(new.username, "username")
        if new.org_admin and not (actor.is_org_admin or actor.is_super_admin):
            raise PermissionDeniedError("Only an org admin can create another org admin.")
        if await self.repo.user_by_username(org_id, new.username) is not None:
            raise ConflictError(f"User {new.username!r} already exists in this organisation.")
        password_hash = None
        if new.password is not None:
            check_password_policy(new.password, min_length=self.settings.password_min_length, username=new.username)
            password_hash = hash_password(new.password)
        user = User(
            org_id=org_id,
            username=new.username,
            display_name=new.display_name or new.username,
            kind=new.kind.value,
            password_hash=password_hash,
            is_org_admin=new.org_admin,
        )
        self.session.add(user)
        await self.session.flush()
        return user

    async def set_password(self, actor: Principal, user: User, password: str) -> None:
        if actor.user_id != user.id:
            self._require(actor, Action.ADMIN, Resource(user.org_id, kind="user", id=user.id))
        check_password_policy(password, min_length=self.settings.password_min_length, username=user.username)
        user.password_hash = hash_password(password)
        user.failed_login_count = 0
        user.locked_until = None
        await self.session.flush()

    async def user_by_username(self, org_id: str, username: str) -> User:
        user = await self.repo.user_by_username(org_id, username)
        if user is None:
            raise NotFoundError(f"No user {username!r} in this organisation.")
        return user

    async def department_by_code(self, org_id: str, code: str) -> Department:
        department = await self.repo.department_by_code(org_id, code)
        if department is None:
            raise NotFoundError(f"No department {code!r} in this organisation; create it first.")
        return department

    async def business_line_by_code(self, org_id: str, code: str) -> BusinessLine:
        line = await self.repo.business_line_by_code(org_id, code)
        if line is None:
            raise NotFoundError(f"No business line {code!r} in this organisation; create it first.")
        return line

    async def grant_role(
        self, actor: Principal, user: User, department: Department, role: Role
    ) -> DepartmentMembership:
        """Add ``role`` to the user's one membership row in ``department`` (creating the row if needed)."""
        self._require(actor, Action.ADMIN, _department_resource(department))
        membership = await self.repo.membership(user.id, department.id)
        if membership is None:
            membership = DepartmentMembership(org_id=user.org_id, user_id=user.id, department_id=department.id)
            self.session.add(membership)
        _refuse_maker_checker(membership, role)
        setattr(membership, role.value, True)
        await self._flush_membership()
        return membership

    async def revoke_role(self, actor: Principal, user: User, department: Department, role: Role) -> None:
        """Remove ``role``; the membership row goes away with its last role."""
        self._require(actor, Action.ADMIN, _department_resource(department))
        membership = await self.repo.membership(user.id, department.id)
        if membership is None or not getattr(membership, role.value):
            raise NotFoundError(f"User {user.username!r} is not {role.value} in department {department.code!r}.")
        setattr(membership, role.value, False)
        if not membership.roles():
            await self.session.delete(membership)
        await self.session.flush()

    async def add_to_business_line(self, actor: Principal, user: User, line: BusinessLine) -> None:
        self._require(actor, Action.ADMIN, Resource(line.org_id, kind="organisation"))
        self.session.add(BusinessLineMembership(org_id=user.org_id, user_id=user.id, business_line_id=line.id))
        await self.session.flush()

    async def grant_special(
        self,
        actor: Principal,
        user: User,
        kind: GrantKind,
        department: Department | None,
        expires_at: datetime | None = None,
    ) -> SpecialGrant:
        """CROSS_DEPT_READ / CROSS_DEPT_APPROVE for one department or (None) all; org admins only."""
        self._require(actor, Action.ADMIN, Resource(user.org_id, kind="organisation"))
        grant = SpecialGrant(
            org_id=user.org_id,
            user_id=user.id,
            kind=kind.value,
            department_id=department.id if department else None,
            granted_by=actor.user_id if actor.user_id != "system" else None,
            expires_at=expires_at,
        )
        self.session.add(grant)
        await self.session.flush()
        return grant

    async def load_principal(self, user: User, *, scopes: frozenset[Action] | None = None) -> Principal:
        """Everything the permission chain needs about ``user``, read once."""
        memberships = await self.repo.memberships(user.id)
        grants = await self.repo.active_grants(user.id, utcnow())
        return Principal(
            user_id=user.id,
            org_id=user.org_id,
            username=user.username,
            is_super_admin=user.is_super_admin,
            is_org_admin=user.is_org_admin,
            department_roles={m.department_id: m.roles() for m in memberships},
            business_line_ids=frozenset(await self.repo.business_line_ids(user.id)),
            grants=frozenset(CrossDeptGrant(GrantKind(g.kind), g.department_id) for g in grants),
            scopes=scopes,
        )

    def _require(self, actor: Principal, action: Action, resource: Resource) -> None:
        decide_permission(actor, action, resource).require()

    async def _flush_membership(self) -> None:
        try:
            await self.session.flush()
        except IntegrityError as exc:
            if "maker_checker" in str(exc.orig):
                raise MakerCheckerViolationError(MAKER_CHECKER_MESSAGE) from exc
            raise


def _department_resource(department: Department) -> Resource:
    return Resource(department.org_id, dept_id=department.id, kind="department", id=department.id)


def _refuse_maker_checker(membership: DepartmentMembership, role: Role) -> None:
    if (role is Role.APPROVER and membership.operator) or (role is Role.OPERATOR and membership.approver):
        raise MakerCheckerViolationError(MAKER_CHECKER_MESSAGE)


def _check_code(value: str, what: str) -> None:
    allowed = value.replace("-", "").replace("_", "").replace(".", "")
    if not value or len(value) > 64 or not allowed.isalnum():
        raise ValidationFailedError(f"The {what} {value!r} must be 1–64 letters, digits, '-', '_' or '.' (no spaces).")
