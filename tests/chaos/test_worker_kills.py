"""Kill harness: worker processes take runs of the payment and statement templates against the sandbox; the one
holding a run is killed with SIGKILL at a kill point (while a step runs, right after a step's commit, or in the
middle of the payment: the effect ledger said `started` and nothing settled it) and another worker finishes the
run. Asserted for every trial: the run completes; no subtask starts again after its commit; the payment exists
exactly once in the sandbox with its ledger row; event sequence numbers are contiguous. SQLite and PostgreSQL.

The normal suite runs a bounded sample (mid-payment plus one seeded random kill point per database);
`make chaos` (FINRPA_CHAOS_TRIALS=30) runs the full count over every kill point and prints the figures.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from finrpa.bootstrap import open_app
from finrpa.commands.demo import seed_demo_org
from finrpa.commands.runs import start_run
from finrpa.config import Settings
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.server import SandboxServer
from tests.chaos.harness import (
    TEMPLATES,
    Chaos,
    KillPoint,
    TrialReport,
    WorkerPool,
    check_payment_once,
    check_run,
    kill_plan,
    kill_point_env,
    summary,
    wait_until_listening,
)
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.runs import approve_when_asked

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FULL_TRIALS = int(os.environ.get("FINRPA_CHAOS_TRIALS", "0"))
SEED = kill_point_env(20261130)
SAMPLE = [KillPoint("payment", "pay", "effect"), kill_plan(1, SEED)[0]]
REPORTS: dict[str, list[TrialReport]] = {}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    with SandboxServer(SandboxConfig(port=0, expose_state=True)) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def chaos(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, sandbox: SandboxServer
) -> AsyncIterator[Chaos]:
    """One database, its demo organisation, an approver, and two long-lived workers for all trials."""
    backend = str(request.param)
    tmp_path: Path = tmp_path_factory.mktemp(f"chaos-{backend}")
    async with fresh_database(backend, tmp_path) as url:
        data = tmp_path / "var"
        settings = Settings(data_dir=data, database_url=url)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            from finrpa.runs.durable import RunQueueClient

            client = RunQueueClient(settings)
            worker_env = dict(os.environ, FINRPA_DATA_DIR=str(data), FINRPA_DATABASE_URL=url)
            # a spare starts while a trial runs, so the next trial need not wait for the killed worker's replacement
            pool = WorkerPool(worker_env, prefix="w", log_dir=tmp_path / "workers", target=3)
            stop = asyncio.Event()
            approver = asyncio.create_task(approve_when_asked(app, demo.org_id, "approver", stop))  # payments need one
            chaos = Chaos(app, demo.org_id, demo.dept_id, client, pool, sandbox.base_url)
            try:
                await wait_until_listening(app, pool)
                yield chaos
            finally:
                stop.set()
                await approver
                pool.stop()
                client.close()
                if REPORTS.get(backend):
                    print(summary(REPORTS[backend], backend))


async def _trial(chaos: Chaos, point: KillPoint, index: int) -> None:
    await wait_until_listening(chaos.app, chaos.pool)
    backend = "sqlite" if chaos.app.settings.is_sqlite else "postgres"  # the fixture's param: its summary key
    report, _ = await chaos.trial(point, f"{backend}-{index}")
    REPORTS.setdefault(backend, []).append(report)
    failover = f"{report.failover_s:.1f} s" if report.failover_s is not None else "-"
    print(f" [{backend} {point.label}: after {report.killed_during}, failover {failover}, {report.seconds:.0f} s]")


@pytest.mark.parametrize("point", SAMPLE, ids=lambda p: p.label)
async def test_a_killed_worker_s_run_finishes_on_another_worker_without_repeating_anything(
    chaos: Chaos, point: KillPoint
) -> None:
    await _trial(chaos, point, SAMPLE.index(point))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("index", "point"), list(enumerate(kill_plan(FULL_TRIALS, SEED))), ids=lambda v: getattr(v, "label", str(v))
)
async def test_chaos_trials_over_every_kill_point(chaos: Chaos, index: int, point: KillPoint) -> None:
    await _trial(chaos, point, 100 + index)


async def test_a_paused_worker_that_was_replaced_is_fenced_and_cannot_act(chaos: Chaos) -> None:
    """SIGSTOP the holder mid-payment; the supervisor declares it dead and another worker finishes the run; after
    SIGCONT the paused worker finds itself fenced: it commits nothing, pays nothing, and leaves the pool.

    PostgreSQL only: a process paused inside one of SQLite's write transactions (a heartbeat, a queue poll) holds
    the single write lock of the file, so every other worker waits for it; several workers sharing one database
    is the PostgreSQL deployment, SQLite is the embedded single-worker one."""
    if chaos.app.settings.is_sqlite:
        pytest.skip("a paused process can hold SQLite's only write lock; shared workers use PostgreSQL")
    await wait_until_listening(chaos.app, chaos.pool)
    point = KillPoint("payment", "pay", "effect")
    args = chaos.arguments("payment", "stale")  # the reference carries the time: it is unique per trial
    run_id = await start_run(
        chaos.app, chaos.org_id, TEMPLATES["payment"], args, created_by="chaos", dept_id=chaos.dept_id
    )
    await chaos.client.enqueue(run_id, chaos.org_id)
    await chaos.wait_for(run_id, point)  # the payment's ledger row says started
    _, events, _ = await chaos.read(run_id)
    holder = [e.payload["worker_id"] for e in events if e.type == "claimed"][-1]
    paused = chaos.pool.processes[holder]
    paused.send_signal(signal.SIGSTOP)
    try:
        status = await chaos.wait_final(run_id)
    finally:
        paused.send_signal(signal.SIGCONT)
    deadline = time.monotonic() + 60
    while paused.poll() is None and time.monotonic() < deadline:  # it wakes up, sees it was replaced, stops
        await asyncio.sleep(0.2)
    _, events, effects = await chaos.read(run_id)
    check_run(status, events)
    claims = [e.payload for e in events if e.type == "claimed"]
    assert claims[-1]["worker_id"] != holder, "another worker took the run over"
    check_payment_once(chaos.sandbox_url, args["business_ref"], effects)
    assert paused.poll() is not None, "a worker declared dead leaves the pool instead of taking more runs"
