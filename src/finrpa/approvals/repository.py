"""Queries on approval requests and decisions. Nothing here commits: the caller's unit of work does.

Every change of a request's status is ONE conditional UPDATE ``… WHERE status = 'PENDING'`` (and, for
decisions, ``AND expires_at > now``): whoever's UPDATE matches first decides, the others match no row.
On PostgreSQL a concurrent UPDATE waits for the row lock and re-evaluates the WHERE clause and the SET
expressions against the committed row, so with dual control the second distinct approval sees the first
one's count; on SQLite the single writer gives the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.approvals.models import ApprovalDecision, ApprovalRequest, ApprovalStatus, Verdict
from finrpa.db.base import new_id

_PENDING = ApprovalStatus.PENDING.value


class ApprovalRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def _insert(self) -> Any:
        return postgresql.insert if self.session.get_bind().dialect.name == "postgresql" else sqlite.insert

    async def insert_request(self, values: dict[str, Any]) -> str | None:
        """Insert a request; None when one with the same (org, run, subtask, payload hash, attempt) exists."""
        statement = (
            self._insert()(ApprovalRequest)
            .values(**values)
            .on_conflict_do_nothing(index_elements=["org_id", "run_id", "subtask_id", "payload_hash", "attempt"])
            .returning(ApprovalRequest.id)
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def get(self, approval_id: str) -> ApprovalRequest | None:
        statement = select(ApprovalRequest).where(ApprovalRequest.id == approval_id)
        return (await self.session.execute(statement.execution_options(populate_existing=True))).scalar_one_or_none()

    async def by_payload(self, run_id: str, subtask_id: str, digest: str, attempt: int) -> ApprovalRequest | None:
        statement = select(ApprovalRequest).where(
            ApprovalRequest.run_id == run_id,
            ApprovalRequest.subtask_id == subtask_id,
            ApprovalRequest.payload_hash == digest,
            ApprovalRequest.attempt == attempt,
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def pending_of_run(self, run_id: str, subtask_id: str | None = None) -> list[str]:
        """Ids of the run's PENDING requests (of one subtask when given)."""
        statement = select(ApprovalRequest.id).where(
            ApprovalRequest.run_id == run_id, ApprovalRequest.status == _PENDING
        )
        if subtask_id is not None:
            statement = statement.where(ApprovalRequest.subtask_id == subtask_id)
        return list((await self.session.execute(statement.order_by(ApprovalRequest.created_at))).scalars())

    async def pending(self, *, now: datetime, limit: int) -> Sequence[ApprovalRequest]:
        """Requests still open, oldest first."""
        statement = (
            select(ApprovalRequest)
            .where(ApprovalRequest.status == _PENDING, ApprovalRequest.expires_at > now)
            .order_by(ApprovalRequest.created_at, ApprovalRequest.id)
            .limit(limit)
        )
        return (await self.session.execute(statement)).scalars().all()

    async def recent(self, *, status: ApprovalStatus | None, limit: int) -> Sequence[ApprovalRequest]:
        statement = select(ApprovalRequest)
        if status is not None:
            statement = statement.where(ApprovalRequest.status == status.value)
        statement = statement.order_by(ApprovalRequest.created_at.desc(), ApprovalRequest.id.desc()).limit(limit)
        return (await self.session.execute(statement)).scalars().all()

    async def page(
        self, *, status: ApprovalStatus | None, run_id: str | None, before: tuple[datetime, str] | None, limit: int
    ) -> Sequence[ApprovalRequest]:
        """Requests newest first (of one status and run when given), strictly before the keyset ``before``."""
        statement = select(ApprovalRequest)
        if status is not None:
            statement = statement.where(ApprovalRequest.status == status.value)
        if run_id is not None:
            statement = statement.where(ApprovalRequest.run_id == run_id)
        if before is not None:
            statement = statement.where(tuple_(ApprovalRequest.created_at, ApprovalRequest.id) < before)
        statement = statement.order_by(ApprovalRequest.created_at.desc(), ApprovalRequest.id.desc()).limit(limit)
        return (await self.session.execute(statement)).scalars().all()

    async def open_page(
        self, *, now: datetime, run_id: str | None, after: tuple[datetime, str] | None, limit: int
    ) -> Sequence[ApprovalRequest]:
        """Requests still open, oldest first (of one run when given), strictly after the keyset ``after``."""
        statement = select(ApprovalRequest).where(ApprovalRequest.status == _PENDING, ApprovalRequest.expires_at > now)
        if run_id is not None:
            statement = statement.where(ApprovalRequest.run_id == run_id)
        if after is not None:
            statement = statement.where(tuple_(ApprovalRequest.created_at, ApprovalRequest.id) > after)
        statement = statement.order_by(ApprovalRequest.created_at, ApprovalRequest.id).limit(limit)
        return (await self.session.execute(statement)).scalars().all()

    async def due(self, now: datetime, limit: int) -> list[str]:
        """Ids of PENDING requests whose deadline has passed."""
        statement = (
            select(ApprovalRequest.id)
            .where(ApprovalRequest.status == _PENDING, ApprovalRequest.expires_at <= now)
            .order_by(ApprovalRequest.expires_at)
            .limit(limit)
        )
        return list((await self.session.execute(statement)).scalars())

    async def status_of(self, approval_id: str) -> tuple[ApprovalStatus, datetime] | None:
        statement = select(ApprovalRequest.status, ApprovalRequest.expires_at).where(ApprovalRequest.id == approval_id)
        row = (await self.session.execute(statement)).one_or_none()
        return None if row is None else (ApprovalStatus(row.status), row.expires_at)

    async def decisions(self, approval_id: str) -> Sequence[ApprovalDecision]:
        statement = (
            select(ApprovalDecision)
            .where(ApprovalDecision.approval_id == approval_id)
            .order_by(ApprovalDecision.decided_at, ApprovalDecision.id)
        )
        return (await self.session.execute(statement)).scalars().all()

    async def decision_of(self, approval_id: str, approver_user_id: str) -> ApprovalDecision | None:
        statement = select(ApprovalDecision).where(
            ApprovalDecision.approval_id == approval_id, ApprovalDecision.approver_user_id == approver_user_id
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def decided_by(self, approver_user_id: str, approval_ids: Sequence[str]) -> set[str]:
        if not approval_ids:
            return set()
        statement = select(ApprovalDecision.approval_id).where(
            ApprovalDecision.approver_user_id == approver_user_id, ApprovalDecision.approval_id.in_(approval_ids)
        )
        return set((await self.session.execute(statement)).scalars())

    async def insert_decision(
        self, request: ApprovalRequest, approver_user_id: str, verdict: Verdict, comment: str, now: datetime
    ) -> bool:
        """Record one approver's verdict; False when this approver already has a row (counted once)."""
        values = {
            "id": new_id(),
            "org_id": request.org_id,
            "approval_id": request.id,
            "approver_user_id": approver_user_id,
            "requested_by": request.requested_by,
            "verdict": verdict.value,
            "comment": comment,
            "payload_hash": request.payload_hash,
            "decided_at": now,
        }
        statement = (
            self._insert()(ApprovalDecision)
            .values(**values)
            .on_conflict_do_nothing(index_elements=["approval_id", "approver_user_id"])
            .returning(ApprovalDecision.id)
        )
        return (await self.session.execute(statement)).scalar_one_or_none() is not None

    async def count_approval(self, approval_id: str, now: datetime, resolution: str) -> bool:
        """Add one approval; the request becomes APPROVED when it reaches its required count.

        False when the request was no longer PENDING or had expired.
        """
        reached = ApprovalRequest.approvals + 1 >= ApprovalRequest.required_approvals
        statement = (
            update(ApprovalRequest)
            .where(*_open(approval_id, now))
            .values(
                approvals=ApprovalRequest.approvals + 1,
                status=case((reached, ApprovalStatus.APPROVED.value), else_=_PENDING),
                decided_at=case((reached, now), else_=None),
                resolution=case((reached, resolution), else_=None),
            )
            .returning(ApprovalRequest.id)
            .execution_options(synchronize_session=False)
        )
        return (await self.session.execute(statement)).scalar_one_or_none() is not None

    async def reject(self, approval_id: str, now: datetime, resolution: str) -> bool:
        """REJECTED, if the request is still open; False when something else decided it first."""
        return await self._finalize(_open(approval_id, now), ApprovalStatus.REJECTED, now, resolution)

    async def time_out(self, approval_id: str, now: datetime, resolution: str, *, only_due: bool) -> bool:
        """TIMEOUT, if still PENDING (and, with ``only_due``, past its deadline)."""
        conditions = [ApprovalRequest.id == approval_id, ApprovalRequest.status == _PENDING]
        if only_due:
            conditions.append(ApprovalRequest.expires_at <= now)
        return await self._finalize(tuple(conditions), ApprovalStatus.TIMEOUT, now, resolution)

    async def cancel(self, approval_id: str, now: datetime, resolution: str) -> bool:
        conditions = (ApprovalRequest.id == approval_id, ApprovalRequest.status == _PENDING)
        return await self._finalize(conditions, ApprovalStatus.CANCELLED, now, resolution)

    async def _finalize(
        self, conditions: tuple[Any, ...], status: ApprovalStatus, now: datetime, resolution: str
    ) -> bool:
        statement = (
            update(ApprovalRequest)
            .where(*conditions)
            .values(status=status.value, decided_at=now, resolution=resolution)
            .returning(ApprovalRequest.id)
            .execution_options(synchronize_session=False)
        )
        return (await self.session.execute(statement)).scalar_one_or_none() is not None


def _open(approval_id: str, now: datetime) -> tuple[Any, ...]:
    return (
        ApprovalRequest.id == approval_id,
        ApprovalRequest.status == _PENDING,
        ApprovalRequest.expires_at > now,
    )
