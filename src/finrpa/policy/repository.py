"""Database access for the policy domain. Every query names the organisation (the tenancy hook and RLS
enforce it again)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.policy.models import CapabilityTokenUse, OrgPolicy, PolicyDecisionRecord


class OrgPolicyRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    def add(self, policy: OrgPolicy) -> OrgPolicy:
        self._session.add(policy)
        return policy

    async def enabled(self, org_id: str) -> Sequence[OrgPolicy]:
        statement = (
            select(OrgPolicy)
            .where(OrgPolicy.org_id == org_id, OrgPolicy.enabled.is_(True))
            .order_by(OrgPolicy.created_at, OrgPolicy.id)
        )
        return (await self._session.scalars(statement)).all()

    async def all(self, org_id: str) -> Sequence[OrgPolicy]:
        statement = select(OrgPolicy).where(OrgPolicy.org_id == org_id).order_by(OrgPolicy.created_at)
        return (await self._session.scalars(statement)).all()

    async def get(self, org_id: str, policy_id: str) -> OrgPolicy | None:
        statement = select(OrgPolicy).where(OrgPolicy.org_id == org_id, OrgPolicy.id == policy_id)
        return (await self._session.scalars(statement)).one_or_none()


class DecisionLogRepository:
    """Only inserts and reads: the table is append-only."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def append(self, record: PolicyDecisionRecord) -> PolicyDecisionRecord:
        self._session.add(record)
        await self._session.flush()
        return record

    async def for_run(self, org_id: str, run_id: str) -> Sequence[PolicyDecisionRecord]:
        statement = (
            select(PolicyDecisionRecord)
            .where(PolicyDecisionRecord.org_id == org_id, PolicyDecisionRecord.run_id == run_id)
            .order_by(PolicyDecisionRecord.created_at, PolicyDecisionRecord.id)
        )
        return (await self._session.scalars(statement)).all()


class TokenUseRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def consume(self, org_id: str, jti: str, max_uses: int, expires_at: datetime) -> bool:
        """Count one use of ``jti``; False when it was already used ``max_uses`` times. Atomic per statement:
        the first use inserts, later uses increment only while under the limit."""
        now = utcnow()
        values = {
            "jti": jti, "org_id": org_id, "uses": 1, "max_uses": max_uses, "expires_at": expires_at,
            "first_used_at": now,
        }  # fmt: skip
        dialect = self._session.bind.dialect.name if self._session.bind else "sqlite"
        insert = pg_insert if dialect == "postgresql" else sqlite_insert
        inserted = await self._session.execute(
            insert(CapabilityTokenUse).values(**values).on_conflict_do_nothing(index_elements=["jti"])
        )
        if getattr(inserted, "rowcount", 0) == 1:
            return True
        bumped = await self._session.execute(
            update(CapabilityTokenUse)
            .where(
                CapabilityTokenUse.org_id == org_id,
                CapabilityTokenUse.jti == jti,
                CapabilityTokenUse.uses < CapabilityTokenUse.max_uses,
            )
            .values(uses=CapabilityTokenUse.uses + 1)
            .execution_options(synchronize_session=False)
        )
        return getattr(bumped, "rowcount", 0) == 1
