"""The run journal: every transition of a run is one transaction of events + checkpoint + status.

A worker holds the run's fencing token from when it claimed the run; a commit with an older token is refused
(``StaleWorkerError``), so a worker that was paused and replaced can never write again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.db.base import utcnow
from finrpa.exceptions import ConflictError
from finrpa.runs.models import Run
from finrpa.runs.repository import NewEvent, RunRepository

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
    run = await repository.get(run_id, for_update=True)
    check_fence(run, fencing_token)
    seq = await repository.append_events(run, transition.events)
    if transition.state is not None:
        await repository.save_checkpoint(run, seq, transition.state, transition.storage_state, transition.url)
    if transition.status is not None:
        run.status = transition.status
        if transition.status in FINAL:
            run.finished_at = utcnow()
    if transition.error_message is not None:
        run.error_message = transition.error_message
    if transition.result is not None:
        run.result = transition.result
    run.updated_at = utcnow()
    await session.flush()
    return seq


def check_fence(run: Run, fencing_token: int) -> None:
    if run.fencing_token != fencing_token:
        raise StaleWorkerError(
            f"Run {run.id} is now held by another worker (token {run.fencing_token}, this worker has "
            f"{fencing_token}); this worker stops acting on it."
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
