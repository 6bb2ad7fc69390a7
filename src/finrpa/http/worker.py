"""The embedded run worker of ``finrpa serve``: runs created through the API execute in this process.

``schedule_run(state, run_id, org_id)`` is the one door: it hands the run to the embedded worker, which runs
``RunRunner.execute`` as a background task (one Chromium for the process, started on the first run). The
durable DBOS worker will replace this behind the same function. Without an embedded worker (``--no-worker``)
runs go to the durable queue that ``finrpa worker`` processes listen on (``DurableQueue``).

At start-up (:meth:`EmbeddedWorker.start`) the worker picks up runs left PENDING, RUNNING or WAITING_APPROVAL by
a previous process (the run's fencing token makes the takeover safe), as a ``finrpa worker`` recovers its
workflows: a decision taken while the process was down is honoured, a pending request is waited on again. Runs
waiting for a person (NEEDS_HUMAN) stay where they are. Like ``finrpa worker``, it also sweeps overdue approval
requests every ``approval_sweep_s`` (finrpa.approvals.expiry).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import select

from finrpa.agents.plan import TaskStatus
from finrpa.approvals.expiry import run_expiry
from finrpa.audit.service import AuditService
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import FinRPAError
from finrpa.http.metrics import RUNS_FINISHED, RUNS_STARTED
from finrpa.http.state import ApiState
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.models import Run
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.runs.secrets import vault_secrets
from finrpa.tenancy.context import system_context
from finrpa.tenancy.database import TenantDatabase

logger = logging.getLogger(__name__)

SWEEP_STOP_TIMEOUT_S = 5.0
RESUMABLE = (TaskStatus.PENDING.value, TaskStatus.RUNNING.value, TaskStatus.WAITING_APPROVAL.value)


class EmbeddedWorker:
    def __init__(self, settings: Settings, database: TenantDatabase, audit: AuditService) -> None:
        self.settings = settings
        self.database = database
        self.runner = RunRunner(
            settings,
            database,
            audit=audit,
            secrets=vault_secrets(database.sessions, settings, audit),
            options=RunnerOptions(worker_id="embedded-api"),
        )
        self.audit = audit
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._started = False
        self._start_lock = asyncio.Lock()
        self._stop = asyncio.Event()
        self._sweep: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Start the approvals deadline sweep and resume unfinished runs; returns how many runs were resumed."""
        if self._sweep is None:
            sweep = run_expiry(
                self.database.sessions,
                self.settings,
                self._stop,
                self.settings.approval_sweep_s,
                audit=self.audit,
                bus=self.runner.bus,
            )
            self._sweep = asyncio.create_task(sweep, name="finrpa-approvals-sweep")
        return await self.resume_unfinished()

    def schedule(self, run_id: str, org_id: str) -> None:
        """Execute the run in the background (a no-op when it is already executing here)."""
        if run_id in self._tasks:
            return
        task = asyncio.create_task(self._execute(run_id, org_id), name=f"finrpa-run-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(run_id, None))
        RUNS_STARTED.inc()

    def is_executing(self, run_id: str) -> bool:
        return run_id in self._tasks

    async def stop_run(self, run_id: str) -> None:
        """Stop executing a run here (after it was fenced off, e.g. cancelled); waits for the task to end."""
        task = self._tasks.get(run_id)
        if task is None:
            return
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def resume_unfinished(self) -> int:
        """Schedule every run a previous process left PENDING, RUNNING or WAITING_APPROVAL; returns how many."""
        with system_context("embedded worker: resume unfinished runs after start-up"):
            async with unit_of_work(self.database.sessions) as session:
                rows = (await session.execute(select(Run.id, Run.org_id).where(Run.status.in_(RESUMABLE)))).all()
        for run_id, org_id in rows:
            self.schedule(run_id, org_id)
        return len(rows)

    async def close(self) -> None:
        self._stop.set()
        if self._sweep is not None:  # let a sweep in progress finish its transaction rather than cut it off
            try:
                await asyncio.wait_for(self._sweep, SWEEP_STOP_TIMEOUT_S)
            except TimeoutError:
                with contextlib.suppress(asyncio.CancelledError):
                    await self._sweep
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._started:
            await self.runner.close()

    async def _execute(self, run_id: str, org_id: str) -> None:
        try:
            await self._ensure_started()
            state = await self.runner.execute(run_id, org_id)
            RUNS_FINISHED.labels(status=state.status.value).inc()
        except FinRPAError as exc:
            fields = {"run_id": run_id, "org_id": org_id, "error": exc.message}
            logger.warning("run stopped with an error", extra=fields)
            RUNS_FINISHED.labels(status="ERROR").inc()
        except Exception:
            logger.exception("run crashed in the embedded worker", extra={"run_id": run_id, "org_id": org_id})
            RUNS_FINISHED.labels(status="CRASHED").inc()

    async def _ensure_started(self) -> None:
        async with self._start_lock:
            if not self._started:
                await self.runner.start()
                self._started = True


class DurableQueue:
    """Runs go to the durable workers' queue (``finrpa worker``); the DBOS client is opened on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client: RunQueueClient | None = None

    async def enqueue(self, run_id: str, org_id: str) -> None:
        if self._client is None:
            self._client = RunQueueClient(self.settings)
        await self._client.enqueue(run_id, org_id)
        RUNS_STARTED.inc()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


async def schedule_run(state: ApiState, run_id: str, org_id: str) -> None:
    """Hand a run to whatever executes runs for this API process (see the module docstring)."""
    if state.worker is not None:
        state.worker.schedule(run_id, org_id)
        return
    if state.queue is None:
        logger.info("run left PENDING: this process neither executes nor queues runs", extra={"run_id": run_id})
        return
    try:
        await state.queue.enqueue(run_id, org_id)
    except Exception:
        logger.exception("could not queue the run for a worker", extra={"run_id": run_id, "org_id": org_id})
