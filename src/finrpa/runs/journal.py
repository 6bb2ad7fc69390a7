"""The run journal: every transition of a run is one transaction of events + checkpoint + status.

A worker holds the run's fencing token from when it claimed the run; a commit with an older token is refused
(``StaleWorkerError``), so a worker that was paused and replaced can never write again. The fence check is the
commit's first statement — the UPDATE of the run row only matches while the token holds — and it also takes the
run's lock, under which the events get their contiguous seq.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError
from finrpa.runs.repository import NewCheckpoint, NewEvent, RunRepository

FINAL = frozenset({"COMPLETED", "FAILED", "ABORTED", "TIMEOUT"})


class StaleWorkerError(ConflictError):
    """This worker's claim on the run was superseded; it must stop touching the run."""

    code = "stale_worker"


@dataclass
class Transition:
    """What one node commit writes atomically."""

    events: Sequence[NewEvent]
    state: dict[str, Any] | None = None
    status: str | None = None
    storage_state: str | None = None
    url: str | None = None
    error_message: str | None = None
    result: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


async def commit_transition(session: AsyncSession, run_id: str, fencing_token: int, transition: Transition) -> int:
    """Write the transition inside the caller's transaction; return the last event seq."""
    repository = RunRepository(session)
    now = utcnow()
    org_id = await repository.update_fenced(run_id, fencing_token, _run_changes(transition, now))
    if org_id is None:
        await fence(session, run_id, fencing_token)  # raises: the run is gone from view or held by another worker
        raise StaleWorkerError(f"Run {run_id} changed hands during this commit; this worker stops acting on it.")
    checkpoint = None
    if transition.state is not None:
        checkpoint = NewCheckpoint(transition.state, transition.storage_state, transition.url)
    return await repository.append(run_id, org_id, transition.events, checkpoint, now)


def _run_changes(transition: Transition, now: datetime) -> dict[str, Any]:
    changes: dict[str, Any] = {"updated_at": now}
    if transition.status is not None:
        changes["status"] = transition.status
        if transition.status in FINAL:
            changes["finished_at"] = now
    if transition.error_message is not None:
        changes["error_message"] = transition.error_message
    if transition.result is not None:
        changes["result"] = transition.result
    return changes


async def fence(session: AsyncSession, run_id: str, fencing_token: int, *, lock: bool = True) -> None:
    """Refuse (``StaleWorkerError``) if ``fencing_token`` no longer holds the run; with ``lock``, also lock the run
    until the transaction ends. Reads only the token, not the whole run."""
    current = await RunRepository(session).fencing_token(run_id, for_update=lock)
    if current != fencing_token:
        raise _stale(run_id, current, fencing_token)


def _stale(run_id: str, current: int, fencing_token: int) -> StaleWorkerError:
    return StaleWorkerError(
        f"Run {run_id} is now held by another worker (token {current}, this worker has {fencing_token}); "
        "this worker stops acting on it."
    )


async def claim(session: AsyncSession, run_id: str, worker_id: str) -> int:
    """Take over a run: bump the fencing token so any previous holder is fenced; returns the new token."""
    repository = RunRepository(session)
    run = await repository.get(run_id, for_update=True)
    run.fencing_token += 1
    run.worker_id = worker_id
    await repository.append_events(run, [NewEvent("claimed", {"worker_id": worker_id, "token": run.fencing_token})])
    await session.flush()
    return run.fencing_token
