"""`finrpa worker`: a durable worker. Runs queued runs (as many at once as it has browser slots), beats its heart,
takes part in supervision (a worker whose heart stopped has its database sessions ended and its runs moved to live
workers), and times out
approval requests whose deadline passed (finrpa.approvals.expiry) and signs audit checkpoints of grown chains
(finrpa.audit.checkpointing)."""

from __future__ import annotations

import asyncio
import contextlib
import signal

import typer

from finrpa.approvals.expiry import run_expiry
from finrpa.audit.checkpointing import periodic_checkpoints
from finrpa.audit.service import AuditService
from finrpa.bootstrap import open_app
from finrpa.kit.heap import freeze_startup_heap
from finrpa.runs import workers
from finrpa.runs.durable import DurableEngine, default_worker_id
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.runs.secrets import vault_secrets


def worker(
    worker_id: str = typer.Option("", "--id", help="Worker id (default: host-pid)."),
    slots: int = typer.Option(0, "--slots", help="Browser slots = runs at once (default: FINRPA_BROWSER_SLOTS)."),
    heartbeat_s: float = typer.Option(2.0, "--heartbeat", help="Seconds between heartbeats."),
    dead_after_s: float = typer.Option(6.0, "--dead-after", help="A worker silent this long is declared dead."),
    screenshots: bool = typer.Option(True, "--screenshots/--no-screenshots"),
) -> None:
    """Run queued runs durably until stopped (SIGTERM/SIGINT stop gracefully)."""
    asyncio.run(_worker(worker_id or default_worker_id(), slots, heartbeat_s, dead_after_s, screenshots))


async def _worker(worker_id: str, slots: int, heartbeat_s: float, dead_after_s: float, screenshots: bool) -> None:
    application_name = workers.worker_application_name(worker_id)  # its sessions can be ended if it is declared dead
    async with open_app(application_name=application_name) as app:
        audit = AuditService.from_settings(app.settings)
        options = RunnerOptions(screenshots=screenshots, worker_id=worker_id)
        runner = RunRunner(
            app.settings,
            app.database,
            audit=audit,
            secrets=vault_secrets(app.database.sessions, app.settings, audit),
            options=options,
        )
        await runner.start()
        freeze_startup_heap()  # set up: full collections during runs scan only what runs create
        engine = DurableEngine(runner, worker_id=worker_id, browser_slots=slots or app.settings.browser_slots)
        sessions = app.database.sessions
        await workers.register(sessions, worker_id, engine.browser_slots)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        # Beat from registration on: starting DBOS can take longer than dead_after on a loaded machine, and a
        # worker declared dead while it starts would stop before taking any run.
        tasks = [asyncio.create_task(workers.run_heartbeats(sessions, worker_id, stop, heartbeat_s))]
        await engine.launch(listen=True)
        typer.echo(f"worker {worker_id}: {engine.browser_slots} browser slots, listening on the browser queue")
        terminator = workers.SessionTerminator(app.settings.resolved_database_url, application_name)
        tasks += [
            asyncio.create_task(
                workers.run_supervisor(
                    sessions, engine.recover, stop, heartbeat_s, dead_after_s, worker_id, terminator=terminator
                )
            ),
            asyncio.create_task(
                run_expiry(sessions, app.settings, stop, app.settings.approval_sweep_s, audit=audit, bus=runner.bus)
            ),
        ]
        try:
            async with periodic_checkpoints(audit, app.database, app.settings.audit_checkpoint_interval_s):
                await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await engine.shutdown()  # first: its runs must not be handed over while it still executes them
            await workers.mark_stopped(sessions, worker_id)
            await terminator.dispose()
            await runner.close()
