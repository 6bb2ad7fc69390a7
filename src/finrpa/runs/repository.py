"""Data access for runs: rows, the append-only event log, checkpoints. No commits here.

The step commit's hot path (:meth:`RunRepository.update_fenced` then :meth:`RunRepository.append`) costs two
statements on PostgreSQL: the fenced UPDATE of the run, then the events and the checkpoint in one statement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, bindparam, func, insert, select, text, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from finrpa.db.base import utcnow
from finrpa.exceptions import NotFoundError
from finrpa.runs.models import Run, RunCheckpoint, RunEvent


@dataclass(frozen=True)
class NewEvent:
    type: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class NewCheckpoint:
    """The run's next checkpoint: its CoordinationState, sealed browser session and URL."""

    state: dict[str, Any]
    storage_state: str | None
    url: str | None


# PostgreSQL: the last seq is read AFTER the run row is locked (a new statement, so a new snapshot under READ
# COMMITTED sees every commit of the previous holder of the lock); the events follow it without a gap, and the
# checkpoint is upserted without being read first. Events travel as arrays, so the SQL is the same for any count.
_PG_LAST_AND_EVENTS = """
WITH last AS (SELECT coalesce(max(seq), 0) AS seq FROM run_events WHERE run_id = :run_id),
appended AS (
    INSERT INTO run_events (run_id, org_id, seq, type, payload, created_at)
    SELECT :run_id, :org_id, last.seq + e.n, e.type, CAST(e.payload AS JSON), :now
    FROM last, unnest(CAST(:types AS VARCHAR[]), CAST(:payloads AS TEXT[])) WITH ORDINALITY AS e(type, payload, n)
)"""
_PG_SAVE_CHECKPOINT = """,
saved AS (
    INSERT INTO run_checkpoints (run_id, org_id, seq, state, storage_state, url, updated_at)
    SELECT :run_id, :org_id, last.seq + :count, CAST(:state AS JSON), CAST(:storage_state AS TEXT),
        CAST(:url AS TEXT), :now
    FROM last
    ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, state = excluded.state,
        storage_state = excluded.storage_state, url = excluded.url, updated_at = excluded.updated_at
)"""
_PG_RESULT = "\nSELECT seq + :count AS seq FROM last"
_NOW = bindparam("now", type_=DateTime(timezone=True))
_PG_APPEND = text(_PG_LAST_AND_EVENTS + _PG_RESULT).bindparams(_NOW)
_PG_APPEND_WITH_CHECKPOINT = text(_PG_LAST_AND_EVENTS + _PG_SAVE_CHECKPOINT + _PG_RESULT).bindparams(_NOW)


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

    async def update_fenced(self, run_id: str, fencing_token: int, values: Mapping[str, Any]) -> str | None:
        """Lock the run and write ``values`` to it if ``fencing_token`` still holds it — the lock, the fence check
        and the update are one statement. Returns the run's organisation, or None if the run is not visible or
        its token moved on (nothing is written then; :meth:`fencing_token` tells which)."""
        statement = (
            update(Run)
            .where(Run.id == run_id, Run.fencing_token == fencing_token)
            .values(**values)
            .returning(Run.org_id)
            .execution_options(synchronize_session="fetch")  # a Run loaded in this session sees the new values
        )
        return (await self.session.execute(statement)).scalar_one_or_none()

    async def fencing_token(self, run_id: str, *, for_update: bool = False) -> int:
        """The run's current fencing token (``for_update``: and lock the run until the transaction ends)."""
        statement = select(Run.fencing_token).where(Run.id == run_id)
        if for_update:
            statement = statement.with_for_update()
        token = (await self.session.execute(statement)).scalar_one_or_none()
        if token is None:
            raise NotFoundError(f"No run {run_id!r}.")
        return int(token)

    async def append(
        self,
        run_id: str,
        org_id: str,
        events: Sequence[NewEvent],
        checkpoint: NewCheckpoint | None,
        now: datetime,
    ) -> int:
        """Append events after the last one and, if given, replace the checkpoint (at the new last seq); returns
        the new last seq. The caller holds the run's lock (:meth:`update_fenced`), which keeps seq contiguous."""
        if self.session.get_bind().dialect.name == "postgresql":
            seq = await self._append_pg(run_id, org_id, events, checkpoint, now)
        else:
            seq = await self._append_rows(run_id, org_id, events, checkpoint, now)
        if checkpoint is not None:
            self._refresh_loaded_checkpoint(run_id, seq, checkpoint, now)
        return seq

    async def _append_pg(
        self, run_id: str, org_id: str, events: Sequence[NewEvent], checkpoint: NewCheckpoint | None, now: datetime
    ) -> int:
        values: dict[str, Any] = {
            "run_id": run_id,
            "org_id": org_id,
            "now": now,
            "count": len(events),
            "types": [event.type for event in events],
            "payloads": [json.dumps(event.payload) for event in events],
        }
        statement = _PG_APPEND
        if checkpoint is not None:
            statement = _PG_APPEND_WITH_CHECKPOINT
            values |= {"state": json.dumps(checkpoint.state), "storage_state": checkpoint.storage_state}
            values["url"] = checkpoint.url
        return int((await self.session.execute(statement, values)).scalar_one())

    async def _append_rows(
        self, run_id: str, org_id: str, events: Sequence[NewEvent], checkpoint: NewCheckpoint | None, now: datetime
    ) -> int:
        """SQLite: the same writes as separate statements (in-process, no round trips); ORM bulk statements, so the
        tenancy hook checks them."""
        seq = await self.last_seq(run_id)
        if events:
            common = {"run_id": run_id, "org_id": org_id, "created_at": now}
            rows = [common | {"seq": seq + n, "type": e.type, "payload": e.payload} for n, e in enumerate(events, 1)]
            await self.session.execute(insert(RunEvent), rows)
            seq += len(events)
        if checkpoint is not None:
            saved = {"seq": seq, "state": checkpoint.state, "storage_state": checkpoint.storage_state}
            saved |= {"url": checkpoint.url, "updated_at": now}
            statement = sqlite_insert(RunCheckpoint).values(run_id=run_id, org_id=org_id, **saved)
            await self.session.execute(statement.on_conflict_do_update(index_elements=["run_id"], set_=saved))
        return seq

    def _refresh_loaded_checkpoint(self, run_id: str, seq: int, checkpoint: NewCheckpoint, now: datetime) -> None:
        """A checkpoint loaded earlier in this session was replaced behind the ORM's back: give it the new values
        (as loaded, not as changes to write)."""
        sync = self.session.sync_session
        loaded = sync.identity_map.get(sync.identity_key(RunCheckpoint, run_id))
        if loaded is None:
            return
        saved = {"seq": seq, "state": checkpoint.state, "storage_state": checkpoint.storage_state}
        for name, value in (saved | {"url": checkpoint.url, "updated_at": now}).items():
            set_committed_value(loaded, name, value)

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
