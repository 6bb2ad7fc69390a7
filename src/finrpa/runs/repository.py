"""Data access for runs: rows, the append-only event log, checkpoints. No commits here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import NotFoundError
from finrpa.runs.models import Run, RunCheckpoint, RunEvent


@dataclass(frozen=True)
class NewEvent:
    type: str
    payload: dict[str, Any]


class RunRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, run: Run) -> Run:
        self.session.add(run)
        await self.session.flush()
        return run

    async def get(self, run_id: str, *, for_update: bool = False) -> Run:
        statement = select(Run).where(Run.id == run_id)
        if for_update:
            statement = statement.with_for_update()
        run = (await self.session.execute(statement)).scalar_one_or_none()
        if run is None:
            raise NotFoundError(f"No run {run_id!r}.")
        return run

    async def last_seq(self, run_id: str) -> int:
        statement = select(func.coalesce(func.max(RunEvent.seq), 0)).where(RunEvent.run_id == run_id)
        return int((await self.session.execute(statement)).scalar_one())

    async def append_events(self, run: Run, events: Sequence[NewEvent]) -> int:
        """Append events after the last one; returns the new last seq (contiguous from 1)."""
        seq = await self.last_seq(run.id)
        for event in events:
            seq += 1
            self.session.add(
                RunEvent(run_id=run.id, org_id=run.org_id, seq=seq, type=event.type, payload=event.payload)
            )
        await self.session.flush()
        return seq

    async def events(self, run_id: str, after_seq: int = 0, limit: int | None = None) -> list[RunEvent]:
        statement = select(RunEvent).where(RunEvent.run_id == run_id, RunEvent.seq > after_seq).order_by(RunEvent.seq)
        if limit is not None:
            statement = statement.limit(limit)
        return list((await self.session.execute(statement)).scalars())

    async def checkpoint(self, run_id: str) -> RunCheckpoint | None:
        statement = select(RunCheckpoint).where(RunCheckpoint.run_id == run_id)
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def save_checkpoint(
        self, run: Run, seq: int, state: dict[str, Any], storage_state: str | None, url: str | None
    ) -> None:
        checkpoint = await self.checkpoint(run.id)
        if checkpoint is None:
            self.session.add(
                RunCheckpoint(
                    run_id=run.id,
                    org_id=run.org_id,
                    seq=seq,
                    state=state,
                    storage_state=storage_state,
                    url=url,
                )
            )
        else:
            checkpoint.seq = seq
            checkpoint.state = state
            checkpoint.storage_state = storage_state
            checkpoint.url = url
            checkpoint.updated_at = utcnow()
        await self.session.flush()

    async def list(
        self,
        *,
        status: str | None = None,
        template_id: str | None = None,
        limit: int = 50,
        before: tuple[Any, str] | None = None,
    ) -> list[Run]:
        statement = select(Run)
        if status:
            statement = statement.where(Run.status == status)
        if template_id:
            statement = statement.where(Run.template_id == template_id)
        if before is not None:
            created_at, run_id = before
            statement = statement.where(
                (Run.created_at < created_at) | ((Run.created_at == created_at) & (Run.id < run_id))
            )
        statement = statement.order_by(Run.created_at.desc(), Run.id.desc()).limit(limit)
        return list((await self.session.execute(statement)).scalars())
