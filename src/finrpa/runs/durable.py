"""Durable runs on DBOS Transact. This is the only module that imports ``dbos``; replacing the engine means
replacing this file.

A run is the DBOS workflow ``finrpa_run(run_id, org_id)``, enqueued on the ``browser`` queue whose per-worker
concurrency is that worker's browser slots. Inside it the ordinary coordinator runs, with two ports wrapped:

* executing a subtask is a DBOS **step** — after a crash DBOS returns its recorded outcome instead of
  touching the portal again;
* replanning a goal run is a DBOS **step** too — the LLM planner is asked once, and a replay returns the
  recorded plan, which the coordinator commits (``replanned`` event) like any transition;
* committing a node is a DBOS **datasource transaction** on the application database: the run's events, the
  checkpoint (browser session sealed with AES-GCM), the run status, the audit rows AND DBOS's own record of the
  step commit in ONE transaction.

The first thing every (re)execution of the workflow does, outside any step so that it is never replayed, is
to claim the run: the fencing token goes up, so a worker that was paused and replaced can no longer commit.
The coordination state the workflow starts from is loaded in a recorded step (from FinRPA's own event log),
so replay after a crash follows the same path up to the crash and continues live from the last commit.

A claim, the run's preparation or a node commit that waited ``lock_timeout`` for a lock (held by a paused worker
whose sessions the supervisor is about to end) is tried again rather than failing the run; a commit's failed
attempt is a recorded step, so a replay takes the same attempts. Each worker's DBOS sessions carry the worker's
``application_name`` like its own, so the supervisor ends both when it is declared dead.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict
from typing import Any, Literal, TypeVar

from dbos import DBOS, AsyncSQLAlchemyDatasource, DBOSConfig, SetWorkflowID
from dbos._dbos import _get_dbos_instance
from sqlalchemy.ext.asyncio import async_sessionmaker

import finrpa
from finrpa.agents.coordinator import AgentCoordinator, ExecutionOutcome
from finrpa.agents.plan import CoordinationState, SubTask, TaskPlan
from finrpa.config import Settings
from finrpa.db.migrations.rls import APP_ROLE
from finrpa.exceptions import FinRPAError, LockTimeoutError
from finrpa.runs.journal import Transition, commit_transition
from finrpa.runs.lanes import BrowserLanes
from finrpa.runs.repository import NewEvent
from finrpa.runs.runner import PreparedRun, RunRunner, runnable
from finrpa.runs.workers import worker_application_name
from finrpa.tenancy.context import system_context
from finrpa.tenancy.session import install_tenancy

QUEUE_NAME = "browser"
WORKFLOW_NAME = "finrpa_run"
LOCK_RETRY_INITIAL_S = 1.0
LOCK_RETRY_MAX_S = 30.0

logger = logging.getLogger(__name__)
T = TypeVar("T")

_engine: DurableEngine | None = None


def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def system_database_url(settings: Settings) -> str:
    """DBOS's own tables live in the application database (same file / same PostgreSQL database)."""
    url = settings.resolved_database_url
    if url.startswith("sqlite+aiosqlite:///"):
        return "sqlite:///" + url.removeprefix("sqlite+aiosqlite:///")
    return url.replace("postgresql+asyncpg://", "postgresql://")


class DurableEngine:
    """Owns DBOS for this process: launch, the browser queue, enqueueing runs, recovering dead workers."""

    def __init__(
        self,
        runner: RunRunner,
        *,
        worker_id: str | None = None,
        browser_slots: int | None = None,
        polling_interval_s: float = 0.5,
    ) -> None:
        self.runner = runner
        self.settings = runner.settings
        self.worker_id = worker_id or default_worker_id()
        self.browser_slots = browser_slots or self.settings.browser_slots
        self.polling_interval_s = polling_interval_s
        self._prepared: dict[str, tuple[PreparedRun, BrowserLanes]] = {}
        self._datasource: AsyncSQLAlchemyDatasource | None = None
        self._queue: Any = None

    async def launch(self, *, listen: bool = True) -> None:
        """Start DBOS in this event loop (queued runs then execute on it, beside the browser)."""
        global _engine
        _engine = self
        config: DBOSConfig = {
            "name": "finrpa",
            "system_database_url": system_database_url(self.settings),
            "application_version": finrpa.__version__,
            "executor_id": self.worker_id,
            "log_level": "WARNING",
        }
        if not self.settings.is_sqlite:
            config["db_engine_kwargs"] = {"connect_args": {"application_name": worker_application_name(self.worker_id)}}
        DBOS(config=config)
        sessions: async_sessionmaker[Any] = async_sessionmaker(expire_on_commit=False)
        install_tenancy(sessions)
        self._datasource = await AsyncSQLAlchemyDatasource.create(
            datasource_url(self.settings),
            engine=self.runner.database.engine,
            sessionmaker=sessions,
            run_migrations=False,  # `finrpa migrate` created them as the owner; the app role only uses them
        )
        DBOS.launch()
        self._queue = await DBOS.register_queue_async(
            QUEUE_NAME,
            worker_concurrency=self.browser_slots if listen else 0,
            polling_interval_sec=self.polling_interval_s,
        )

    async def shutdown(self) -> None:
        global _engine
        DBOS.destroy(destroy_registry=False)
        _engine = None

    async def enqueue(self, run_id: str, org_id: str) -> None:
        """Queue the run on the browser queue (idempotent: the run id is the workflow id)."""
        with SetWorkflowID(run_id):
            await self._queue.enqueue_async(finrpa_run, run_id, org_id)

    async def wait(self, run_id: str) -> str:
        handle: Any = await DBOS.retrieve_workflow_async(run_id)
        return str(await handle.get_result())

    def recover(self, dead_worker_ids: Sequence[str]) -> int:
        """Re-enqueue the runs dead workers held, so live workers pick them up."""
        return len(DBOS._recover_pending_workflows(list(dead_worker_ids)))

    # -- used by the workflow --------------------------------------------------------------------------
    async def commit(self, prepared: PreparedRun, run_id: str, token: int, payload: dict[str, Any]) -> None:
        """One node commit: events, checkpoint, status, audit rows and DBOS's step record in one transaction.
        Called from workflow code; on replay DBOS returns the recorded commit instead of writing again."""
        assert self._datasource is not None
        datasource = self._datasource
        audit = self.runner.audit

        # SQLite has one writer and serialisable transactions; PostgreSQL locks the run row (fencing).
        isolation: Literal["SERIALIZABLE", "READ COMMITTED"] = (
            "SERIALIZABLE" if self.settings.is_sqlite else "READ COMMITTED"
        )

        @datasource.transaction(name="finrpa_commit", isolation_level=isolation)
        async def write(payload: dict[str, Any]) -> None:
            session = datasource.sql_session()
            transition = Transition(
                events=[NewEvent(e["type"], e["payload"]) for e in payload["events"]],
                state=payload["state"],
                status=payload["status"],
                storage_state=payload["storage"],
                url=payload["url"],
                error_message=payload["error"],
                result=payload["result"],
            )
            await commit_transition(session, run_id, token, transition)
            state = CoordinationState.model_validate(payload["state"])
            entries = prepared.journal.audit_entries(transition.events, state)
            if entries:
                await audit.append_many(session, entries)

        await retry_lock_timeouts(lambda: write(payload), f"commit of run {run_id}")


class _DurableExecutor:
    """Each subtask's execution is a DBOS step. The step id is drawn when the step function is called, before
    anything is awaited, so concurrent branches (started by the coordinator in plan order) get the same ids on
    every replay; the step runs in the subtask's browser lane."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        raw = await execute_subtask_step(self.run_id, state.model_dump(mode="json"), subtask.subtask_id)
        return _outcome(raw)

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        raw = await compensate_subtask_step(self.run_id, state.model_dump(mode="json"), subtask.subtask_id)
        return _outcome(raw)


class ReplanFailed(FinRPAError):
    """The recorded replan step gave no plan (its message says why); the run goes to a person."""

    code = "replan_failed"


class _DurableReplanner:
    """A goal run's replanning as a recorded DBOS step: after a crash the replay gets the same plan back
    instead of asking the LLM again (which could answer differently)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    async def replan(self, state: CoordinationState, failure: str) -> TaskPlan:
        raw = await replan_step(self.run_id, state.model_dump(mode="json"), failure)
        if "plan" not in raw:
            raise ReplanFailed(str(raw.get("error") or "the planner gave no plan"))
        return TaskPlan.model_validate(raw["plan"])


class DurableJournal:
    """The coordinator's journal inside the workflow: each commit is a recorded datasource transaction."""

    def __init__(self, run_id: str, token: int, prepared: PreparedRun) -> None:
        self.run_id = run_id
        self.token = token
        self.prepared = prepared

    async def commit(
        self,
        events: Sequence[NewEvent],
        state: CoordinationState,
        *,
        error: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        storage, url = await self.prepared.journal.sealed_checkpoint(final=state.status.is_final)
        payload = {
            "events": [{"type": e.type, "payload": e.payload} for e in events],
            "state": state.model_dump(mode="json"),
            "status": state.status.value,
            "storage": storage,
            "url": url,
            "error": error,
            "result": result,
        }
        await _current().commit(self.prepared, self.run_id, self.token, payload)


async def retry_lock_timeouts(attempt: Callable[[], Awaitable[T]], what: str) -> T:
    """Run ``attempt`` until it does not end in a lock timeout, pausing longer each time (up to LOCK_RETRY_MAX_S).
    A lock outlives lock_timeout only while its holder is stuck; the supervisor ends a dead worker's sessions, so
    the run waits for that instead of failing. Every retry is logged: a run retrying for long points at a stuck
    session the operator can see in pg_stat_activity."""
    delay = LOCK_RETRY_INITIAL_S
    while True:
        try:
            return await attempt()
        except LockTimeoutError:
            logger.warning("%s waited too long for a database lock; trying again in %.0f s", what, delay)
        await asyncio.sleep(delay)
        delay = min(delay * 2, LOCK_RETRY_MAX_S)


def _current() -> DurableEngine:
    if _engine is None:
        raise RuntimeError("The durable engine is not launched in this process.")
    return _engine


def _outcome(raw: dict[str, Any]) -> ExecutionOutcome:
    events = [NewEvent(e["type"], e["payload"]) for e in raw.pop("events")]
    return ExecutionOutcome(events=events, **raw)


def _serialise(outcome: ExecutionOutcome) -> dict[str, Any]:
    data = asdict(outcome)
    data["events"] = [{"type": e.type, "payload": e.payload} for e in outcome.events]
    return data


@DBOS.workflow(name=WORKFLOW_NAME)
async def finrpa_run(run_id: str, org_id: str) -> str:
    engine = _current()
    runner = engine.runner
    with system_context(f"durable run {run_id}", org_id=org_id):
        # live on every (re)execution: fences any earlier holder
        token = await retry_lock_timeouts(lambda: runner.claim(run_id), f"claim of run {run_id}")
        state = CoordinationState.model_validate(await load_state_step(run_id, org_id))
        if not runnable(state):
            return state.status.value
        prepared = await retry_lock_timeouts(lambda: runner.prepare(run_id, token), f"preparation of run {run_id}")
        lanes = BrowserLanes(prepared.executor, prepared.journal)
        coordinator = AgentCoordinator(
            state,
            _DurableExecutor(run_id),
            DurableJournal(run_id, token, prepared),
            planner=_DurableReplanner(run_id) if prepared.planner is not None else None,
            backoff=runner.options.backoff,
            sleep=DBOS.sleep_async,
            parallel=lanes.parallel,  # branches' steps start in plan order: the same step ids on every replay
        )
        engine._prepared[run_id] = (prepared, lanes)
        try:
            final = await coordinator.run()
        finally:
            engine._prepared.pop(run_id, None)
            await lanes.close()
            await prepared.browser.close()
        return final.status.value


@DBOS.step(name="finrpa_load_state")
async def load_state_step(run_id: str, org_id: str) -> dict[str, Any]:
    with system_context(f"load run {run_id}", org_id=org_id):
        state = await _current().runner.load_state(run_id)
    return state.model_dump(mode="json")


@DBOS.step(name="finrpa_execute_subtask")
async def execute_subtask_step(run_id: str, state: dict[str, Any], subtask_id: str) -> dict[str, Any]:
    _, lanes = _current()._prepared[run_id]
    current = CoordinationState.model_validate(state)
    outcome = await lanes.execute(current, current.plan.subtask(subtask_id))
    return _serialise(outcome)


@DBOS.step(name="finrpa_replan")
async def replan_step(run_id: str, state: dict[str, Any], failure: str) -> dict[str, Any]:
    """Ask the run's LLM planner for the rest of the plan; the answer (or why there is none) is recorded."""
    prepared, _ = _current()._prepared[run_id]
    if prepared.planner is None:
        return {"error": "this run has no planner that can replan it"}
    try:
        plan = await prepared.planner.replan(CoordinationState.model_validate(state), failure)
    except FinRPAError as exc:
        return {"error": f"{exc.code}: {exc.message}"}
    return {"plan": plan.model_dump(mode="json")}


@DBOS.step(name="finrpa_compensate_subtask")
async def compensate_subtask_step(run_id: str, state: dict[str, Any], subtask_id: str) -> dict[str, Any]:
    _, lanes = _current()._prepared[run_id]
    current = CoordinationState.model_validate(state)
    outcome = await lanes.compensate(current, current.plan.subtask(subtask_id))
    return _serialise(outcome)


def dbos_instance_ready() -> bool:
    try:
        _get_dbos_instance()
    except Exception:  # noqa: BLE001 - DBOS raises a plain exception when not configured
        return False
    return True


class RunQueueClient:
    """Enqueue runs for the durable workers from any process (the API, the CLI, tests) without running one."""

    def __init__(self, settings: Settings) -> None:
        from dbos import DBOSClient

        self._client = DBOSClient(system_database_url=system_database_url(settings), application_name="finrpa")

    async def enqueue(self, run_id: str, org_id: str) -> None:
        """Queue the run. Enqueueing a run that is already queued or running does nothing; a run that ran before
        and was resolved by a person (or otherwise resumed) gets the next execution id ``<run_id>.<n>``."""
        from dbos import EnqueueOptions

        workflow_id = await self._next_execution_id(run_id)
        if workflow_id is None:
            return
        options: EnqueueOptions = {
            "queue_name": QUEUE_NAME,
            "workflow_name": WORKFLOW_NAME,
            "workflow_id": workflow_id,
            "app_version": finrpa.__version__,
        }
        await self._client.enqueue_async(options, run_id, org_id)

    async def _next_execution_id(self, run_id: str) -> str | None:
        for generation in range(1000):
            candidate = run_id if generation == 0 else f"{run_id}.{generation}"
            found = await self._client.list_workflows_async(workflow_ids=[candidate])
            if not found:
                return candidate
            if found[0].status in ("ENQUEUED", "PENDING", "DELAYED"):
                return None
        raise RuntimeError(f"run {run_id} was executed 1000 times; refusing to queue it again")

    async def result(self, workflow_id: str, *, poll_s: float = 0.5) -> str:
        handle: Any = await self._client.retrieve_workflow_async(workflow_id)
        return str(await handle.get_result(polling_interval_sec=poll_s))

    def close(self) -> None:
        self._client.destroy()


async def migrate_engine_tables(settings: Settings) -> None:
    """Create or upgrade DBOS's own tables (in the application database) as the owner, so runs can be queued
    before any worker has started and the application role (which cannot create tables) can use them."""
    url = system_database_url(settings)
    await asyncio.to_thread(DBOS.migrate, url)
    role = None if settings.is_sqlite else APP_ROLE
    await AsyncSQLAlchemyDatasource.migrate(datasource_url(settings), application_role=role)


def datasource_url(settings: Settings) -> str:
    return settings.resolved_database_url
