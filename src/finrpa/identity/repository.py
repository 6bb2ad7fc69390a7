"""Queries over the identity tables. Every query runs through the tenant hook of the session it is given."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.identity.models import (
    ApiKey,
    AuthSession,
    BusinessLine,
    BusinessLineMembership,
    Department,
    DepartmentMembership,
    LoginAttempt,
    Organization,
    RefreshToken,
    SpecialGrant,
    User,
)


class IdentityRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def organization_by_slug(self, slug: str) -> Organization | None:
        return await self.session.scalar(select(Organization).where(Organization.slug == slug))

    async def organizations(self) -> Sequence[Organization]:
        return (await self.session.scalars(select(Organization).order_by(Organization.slug))).all()

    async def department(self, department_id: str) -> Department | None:
        return await self.session.get(Department, department_id)

    async def department_by_code(self, org_id: str, code: str) -> Department | None:
        query = select(Department).where(Department.org_id == org_id, Department.code == code)
        return await self.session.scalar(query)

    async def departments(self, org_id: str) -> Sequence[Department]:
        query = select(Department).where(Department.org_id == org_id).order_by(Department.code)
        return (await self.session.scalars(query)).all()

    async def business_line_by_code(self, org_id: str, code: str) -> BusinessLine | None:
        query = select(BusinessLine).where(BusinessLine.org_id == org_id, BusinessLine.code == code)
        return await self.session.scalar(query)

    async def user(self, user_id: str) -> User | None:
        return await self.session.get(User, user_id)

    async def user_by_username(self, org_id: str, username: str) -> User | None:
        query = select(User).where(User.org_id == org_id, User.username == username)
        return await self.session.scalar(query)

    async def users(self, org_id: str) -> Sequence[User]:
        query = select(User).where(User.org_id == org_id).order_by(User.username)
        return (await self.session.scalars(query)).all()

    async def membership(self, user_id: str, department_id: str) -> DepartmentMembership | None:
        query = select(DepartmentMembership).where(
            DepartmentMembership.user_id == user_id, DepartmentMembership.department_id == department_id
        )
        return await self.session.scalar(query)

    async def memberships(self, user_id: str) -> Sequence[DepartmentMembership]:
        query = select(DepartmentMembership).where(DepartmentMembership.user_id == user_id)
        return (await self.session.scalars(query)).all()

    async def business_line_ids(self, user_id: str) -> set[str]:
        query = select(BusinessLineMembership.business_line_id).where(BusinessLineMembership.user_id == user_id)
        return set((await self.session.scalars(query)).all())

    async def active_grants(self, user_id: str, now: datetime) -> Sequence[SpecialGrant]:
        query = select(SpecialGrant).where(
            SpecialGrant.user_id == user_id,
            or_(SpecialGrant.expires_at.is_(None), SpecialGrant.expires_at > now),
        )
        return (await self.session.scalars(query)).all()

    async def count_failed_attempts(self, org_id: str, username: str, since: datetime) -> int:
        query = select(func.count()).where(
            LoginAttempt.org_id == org_id,
            LoginAttempt.username == username,
            LoginAttempt.created_at >= since,
            LoginAttempt.succeeded.is_(False),
        )
        return int(await self.session.scalar(query) or 0)

    async def refresh_token_by_hash(self, token_hash: str) -> RefreshToken | None:
        return await self.session.scalar(select(RefreshToken).where(RefreshToken.token_hash == token_hash))

    async def claim_refresh_token(self, token_id: str, now: datetime) -> bool:
        """Mark the token used; False if it was already used (a concurrent or replayed exchange)."""
        result = await self.session.execute(
            update(RefreshToken)
            .where(RefreshToken.id == token_id, RefreshToken.used_at.is_(None))
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        )
        return int(getattr(result, "rowcount", 0)) == 1

    async def auth_session(self, session_id: str) -> AuthSession | None:
        return await self.session.get(AuthSession, session_id)

    async def active_auth_sessions(self, user_id: str) -> Sequence[AuthSession]:
        query = select(AuthSession).where(AuthSession.user_id == user_id, AuthSession.revoked_at.is_(None))
        return (await self.session.scalars(query)).all()

    async def api_key_by_prefix(self, prefix: str) -> ApiKey | None:
        return await self.session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))

    async def api_keys(self, org_id: str) -> Sequence[ApiKey]:
        query = select(ApiKey).where(ApiKey.org_id == org_id).order_by(ApiKey.created_at)
        return (await self.session.scalars(query)).all()
