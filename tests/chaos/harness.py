"""The kill harness's machinery: a long-lived pool of `finrpa worker` processes on one database, kill points over
every subtask of the payment and statement templates, one trial (start a run, SIGKILL its holder at the kill
point, replace the killed worker, let the survivor finish), and the checks every trial must pass.

Starting a worker (Python, Chromium, DBOS) costs tens of seconds on a loaded machine, so the pool starts two once
per database and only replaces the one a trial killed, while the survivor is already finishing the run.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from finrpa.agents.plan import TaskStatus
from finrpa.bootstrap import App
from finrpa.commands.demo import BANK_PASSWORD_SECRET
from finrpa.commands.runs import start_run
from finrpa.db.engine import unit_of_work
from finrpa.runs.durable import RunQueueClient
from finrpa.runs.models import Effect, Run, RunEvent
from finrpa.runs.workers import Worker
from finrpa.tenancy.context import system_context

TEMPLATES = {"payment": "bank_payment_submission", "statement": "bank_statement_download"}
STEPS = {"payment": ("login", "pay"), "statement": ("login", "query", "extract", "export")}
FINAL = ("COMPLETED", "FAILED", "ABORTED", "TIMEOUT")
HEARTBEAT_S, DEAD_AFTER_S = 0.5, 4.0
PURPOSE_LIMIT = 50  # the sandbox bank's 用途/附言 takes at most 50 characters; longer is a rejected payment


@dataclass(frozen=True)
class KillPoint:
    """Where the holder dies: ``started`` (while the step runs), ``done`` (right after its commit, so inside the
    next step or the final commit), or ``effect`` (the payment's ledger row says started, it has not settled)."""

    template: str
    step: str
    moment: str  # started | done | effect

    @property
    def label(self) -> str:
        return f"{self.template}-{self.step}-{self.moment}"


def all_kill_points() -> list[KillPoint]:
    moments = ("started", "done")
    points = [KillPoint(t, step, moment) for t, steps in STEPS.items() for step in steps for moment in moments]
    return [*points, KillPoint("payment", "pay", "effect")]


def kill_plan(trials: int, seed: int) -> list[KillPoint]:
    """``trials`` kill points drawn at random, every point covered once before any repeats."""
    rng = random.Random(seed)
    plan: list[KillPoint] = []
    while len(plan) < trials:
        round_ = all_kill_points()
        rng.shuffle(round_)
        plan.extend(round_)
    return plan[:trials]


@dataclass
class TrialReport:
    point: KillPoint
    run_id: str
    killed_during: str  # the last committed event when the holder died
    recovered: bool  # another worker claimed the run after the kill
    failover_s: float | None
    seconds: float


@dataclass
class WorkerPool:
    """`finrpa worker` processes sharing one database; a killed one is replaced at once."""

    worker_env: dict[str, str]
    prefix: str
    log_dir: Path
    target: int = 2  # workers kept alive: two listening, plus spares starting while a trial runs
    heartbeat_s: float | None = HEARTBEAT_S  # None: the worker's defaults
    dead_after_s: float | None = DEAD_AFTER_S
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _serial: int = 0

    def spawn(self) -> str:
        self._serial += 1
        worker_id = f"{self.prefix}{self._serial}"
        command = [sys.executable, "-m", "finrpa.cli", "worker", "--id", worker_id, "--no-screenshots"]
        if self.heartbeat_s is not None:
            command += ["--heartbeat", str(self.heartbeat_s)]
        if self.dead_after_s is not None:
            command += ["--dead-after", str(self.dead_after_s)]
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / f"{worker_id}.log").open("wb") as log:
            env = dict(self.worker_env, PYTHONUNBUFFERED="1")  # its "listening" line must reach the log at once
            self.processes[worker_id] = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        return worker_id

    def listening(self, worker_id: str) -> bool:
        """The worker said it listens on the browser queue (DBOS launched)."""
        return b"listening on the browser queue" in (self.log_dir / f"{worker_id}.log").read_bytes()

    def fill(self, size: int | None = None) -> None:
        while len(self.alive()) < (size or self.target):
            self.spawn()

    def alive(self) -> list[str]:
        return [worker_id for worker_id, process in self.processes.items() if process.poll() is None]

    def kill(self, worker_id: str) -> None:
        process = self.processes[worker_id]
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def wait_until_listening(app: App, pool: WorkerPool, size: int = 2, timeout_s: float = 300) -> None:
    """Keep ``size`` workers in the pool and wait until they listen (alive, and DBOS launched). One that died
    meanwhile (declared dead by the others on a loaded machine, it stops) is replaced."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pool.fill()
        ids = pool.alive()
        with system_context("chaos: workers"):
            async with unit_of_work(app.database.sessions) as session:
                rows = (await session.execute(select(Worker).where(Worker.id.in_(ids)))).scalars()
                listening = [row.id for row in rows if row.status == "alive" and pool.listening(row.id)]
        if len(listening) >= size:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"{size} workers did not start within {timeout_s:.0f} s")


@dataclass
class Chaos:
    app: App
    org_id: str
    dept_id: str
    client: RunQueueClient
    pool: WorkerPool
    sandbox_url: str

    async def read(self, run_id: str) -> tuple[Run, list[RunEvent], list[Effect]]:
        with system_context("chaos test: read the run", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                run = (await session.execute(select(Run).where(Run.id == run_id))).scalar_one()
                statement = select(RunEvent).where(RunEvent.run_id == run_id).order_by(RunEvent.seq)
                events = list((await session.execute(statement)).scalars())
                effects = list((await session.execute(select(Effect).where(Effect.run_id == run_id))).scalars())
                return run, events, effects

    def arguments(self, template: str, tag: str) -> dict[str, Any]:
        login = {
            "bank_url": f"{self.sandbox_url}/bank/login",
            "username": "corp_demo",
            "password": f"secret://{BANK_PASSWORD_SECRET}",
        }
        if template == "payment":
            business_ref = f"CHAOS-{tag}-{time.time_ns()}"  # written into 用途/附言, so it must fit the field
            if len(business_ref) > PURPOSE_LIMIT:
                raise ValueError(f"{business_ref!r} is longer than {PURPOSE_LIMIT} characters: shorten the tag")
            return login | {
                "payer_account": "1001020309000123456",
                "payee_name": "杭州示例电子商务有限公司",
                "payee_account": "3301040160000012345",
                "payee_bank": "招商银行",
                "amount": "8800.00",
                "business_ref": business_ref,
            }
        # two months: a short statement keeps the trial short without skipping pagination
        return login | {"account_number": "1001020309000123456", "start_date": "2024-01-01", "end_date": "2024-02-29"}

    async def wait_for(self, run_id: str, point: KillPoint, timeout_s: float = 240) -> list[RunEvent]:
        """Poll the log until the kill point (or the run's end); returns the events seen then."""
        deadline = time.monotonic() + timeout_s
        subtask: str | None = None
        while time.monotonic() < deadline:
            run, events, effects = await self.read(run_id)
            if subtask is None and events:
                subtask = subtask_of(events, point.step)
            if run.status in FINAL or reached(point, subtask, events, effects):
                return events
            await asyncio.sleep(0.05)
        raise AssertionError(f"{point.label}: the run never reached its kill point")

    async def wait_final(self, run_id: str, timeout_s: float = 240) -> str:
        """Wait for the run to end, keeping two live workers (a replaced or self-stopped one is replaced)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.pool.fill()
            run, _, _ = await self.read(run_id)
            if run.status in (*FINAL, "NEEDS_HUMAN"):  # a run waiting for a person does not move on by itself
                return str(run.status)
            await asyncio.sleep(0.2)
        raise AssertionError(f"run {run_id} did not end within {timeout_s:.0f} s")

    async def trial(self, point: KillPoint, tag: str) -> tuple[TrialReport, dict[str, Any]]:
        """Start a run, kill its holder at ``point``, replace the worker, wait for the run to end."""
        started = time.monotonic()
        args = self.arguments(point.template, tag)
        run_id = await start_run(
            self.app, self.org_id, TEMPLATES[point.template], args, created_by="chaos", dept_id=self.dept_id
        )
        await self.client.enqueue(run_id, self.org_id)
        seen = await self.wait_for(run_id, point)
        _, events, _ = await self.read(run_id)
        holder = [e.payload["worker_id"] for e in events if e.type == "claimed"][-1]
        self.pool.kill(holder)
        killed_at = time.time()
        killed_during = events[-1].type if events else "nothing"
        status = await self.wait_final(run_id)  # the replacement starts while the survivor finishes the run
        _, events, effects = await self.read(run_id)
        takeover = [e for e in events if e.type == "claimed" and e.seq > len(seen) and e.payload["worker_id"] != holder]
        failover = takeover[0].created_at.timestamp() - killed_at if takeover else None
        check_run(status, events)
        if point.template == "payment":
            check_payment_once(self.sandbox_url, args["business_ref"], effects)
        report = TrialReport(point, run_id, killed_during, bool(takeover), failover, time.monotonic() - started)
        return report, args


def subtask_of(events: Sequence[RunEvent], step: str) -> str | None:
    created = next((e for e in events if e.type == "run_created"), None)
    if created is None:
        return None
    for subtask in created.payload["plan"]["subtasks"]:
        if subtask["inputs"].get("step_id") == step:
            return str(subtask["subtask_id"])
    raise AssertionError(f"the plan has no step {step!r}")


def reached(point: KillPoint, subtask: str | None, events: Sequence[RunEvent], effects: Sequence[Effect]) -> bool:
    if subtask is None or not any(e.type == "claimed" for e in events):
        return False
    if point.moment == "effect":
        return any(e.state == "started" for e in effects)
    wanted = "subtask_started" if point.moment == "started" else "subtask_succeeded"
    return any(e.type == wanted and e.payload.get("subtask_id") == subtask for e in events)


def check_run(status: str, events: Sequence[RunEvent]) -> None:
    """The run completed, its log is contiguous, and no subtask started again after its commit."""
    failures = [e.payload for e in events if e.type in ("subtask_failed", "needs_human")]
    assert status == TaskStatus.COMPLETED.value, failures
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "event sequence numbers are contiguous"
    committed: set[str] = set()
    for event in events:
        subtask = event.payload.get("subtask_id")
        if event.type == "subtask_started":
            assert subtask not in committed, f"subtask {subtask} started again after its commit"
        if event.type == "subtask_succeeded":
            committed.add(str(subtask))
    assert events[-1].type == "run_finished", "nothing is committed after the run finished"


def check_payment_once(sandbox_url: str, business_ref: str, effects: Sequence[Effect]) -> None:
    """The payment exists exactly once in the portal, and it has its (settled) ledger row."""
    state = httpx.get(f"{sandbox_url}/__sandbox__/state", timeout=10).json()
    payments = [p for p in state["payments"] if p["purpose"] == business_ref]
    assert len(payments) == 1, f"the payment must exist exactly once, found {len(payments)}"
    ledger = [e for e in effects if e.business_id == business_ref]
    assert len(ledger) == 1 and ledger[0].state == "succeeded", "no effect without a ledger row"
    assert ledger[0].external_ref == payments[0]["reference"]


def summary(reports: Sequence[TrialReport], backend: str) -> str:
    import statistics

    lines = [f"\n== chaos on {backend}: {len(reports)} trials, {len(reports)} passed"]
    for report in reports:
        failover = f"{report.failover_s:.1f} s" if report.failover_s is not None else "-"
        lines.append(
            f"  {report.point.label:<28} killed after {report.killed_during:<18} "
            f"taken over: {'yes' if report.recovered else 'no (run had ended)':<20} failover {failover:<7} "
            f"trial {report.seconds:.1f} s"
        )
    covered = sorted({r.point.label for r in reports if r.recovered})
    total = len(all_kill_points())
    lines.append(f"  kill points exercised with a takeover: {len(covered)}/{total}: {', '.join(covered)}")
    failovers = [r.failover_s for r in reports if r.failover_s is not None]
    if failovers:
        lines.append(
            f"  failover SIGKILL → claimed by a live worker: median {statistics.median(failovers):.1f} s, "
            f"max {max(failovers):.1f} s over {len(failovers)} takeovers"
        )
    lines.append(f"  time per trial: median {statistics.median(r.seconds for r in reports):.1f} s")
    return "\n".join(lines)


def kill_point_env(default_seed: int) -> int:
    return int(os.environ.get("FINRPA_CHAOS_SEED", str(default_seed)))
