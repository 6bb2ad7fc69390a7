"""A worker declared dead has its PostgreSQL sessions ended by the supervisor before its runs move on, so a lock
its open transaction holds (a paused process mid-statement, which the idle-in-transaction timeout never ends)
does not stall the worker taking over. ``lock_timeout`` is the backstop: a wait that reaches it ends in a
retryable error, which the durable run path tries again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
import pytest_asyncio
from sqlalchemy import text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from finrpa.bootstrap import App, open_app
from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.db.engine import create_engine, unit_of_work
from finrpa.exceptions import LockTimeoutError
from finrpa.runs import workers
from finrpa.runs.durable import retry_lock_timeouts
from finrpa.runs.workers import SessionTerminator, Worker, worker_application_name
from finrpa.tenancy.database import open_tenant_database
from tests.fixtures.databases import fresh_database, postgres_admin_url

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.postgres,
    pytest.mark.skipif(postgres_admin_url() is None, reason="needs FINRPA_TEST_DATABASE_URL"),
]

LOCK_ROW = text("SELECT id FROM workers WHERE id = :id FOR UPDATE")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def database(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[App]:
    tmp_path = tmp_path_factory.mktemp("workers")
    async with fresh_database("postgres", tmp_path) as url:
        settings = Settings(data_dir=tmp_path / "var", database_url=url)
        async with open_app(settings, auto_migrate=True, application_name=worker_application_name("live")) as app:
            yield app


@pytest_asyncio.fixture(loop_scope="module")
async def app(database: App) -> App:
    """Two registered workers, both alive: "live" (the supervisor) and "paused"."""
    await workers.register(database.database.sessions, "live", 1)
    await workers.register(database.database.sessions, "paused", 1)
    return database


async def _silence(app: App, worker_id: str, seconds: float) -> None:
    async with unit_of_work(app.database.sessions) as session:
        await session.execute(
            update(Worker).where(Worker.id == worker_id).values(heartbeat_at=utcnow() - timedelta(seconds=seconds))
        )


async def _sessions_named(engine: AsyncEngine, name: str) -> int:
    async with engine.connect() as connection:
        statement = text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name")
        return int((await connection.execute(statement, {"name": name})).scalar_one())


async def _hold_lock_mid_statement(engine: AsyncEngine, worker_id: str, locked: asyncio.Event) -> None:
    """What a paused worker's session looks like to the server: a transaction holding a row lock whose statement
    is still running (so PostgreSQL's idle-in-transaction timeout does not apply)."""
    async with engine.begin() as connection:
        await connection.execute(LOCK_ROW, {"id": worker_id})
        locked.set()
        await connection.execute(text("SELECT pg_sleep(600)"))


async def test_the_supervisor_ends_a_dead_worker_s_sessions_before_its_runs_move_and_the_waiter_proceeds(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    url = app.settings.resolved_database_url
    paused_name = worker_application_name("paused")
    paused = open_tenant_database(url, application_name=paused_name)  # as its worker process opens it
    observer = create_engine(url)
    terminator = SessionTerminator(url, worker_application_name("live"))
    await _silence(app, "paused", 60)
    locked = asyncio.Event()
    holder = asyncio.create_task(_hold_lock_mid_statement(paused.engine, "paused", locked))
    try:
        await asyncio.wait_for(locked.wait(), 10)
        waiter = asyncio.create_task(_lock_after_wait(app))  # the live worker needs the same row
        await asyncio.sleep(1.0)
        assert not waiter.done(), "the live worker waits on the paused worker's lock"

        sessions_at_recovery: list[int] = []

        def recover(ids: list[str]) -> int:
            # runs the engine's recovery in a thread; the paused worker's sessions must already be gone
            count = asyncio.run_coroutine_threadsafe(_sessions_named(observer, paused_name), loop).result(10)
            sessions_at_recovery.append(count)
            return len(ids)

        loop = asyncio.get_running_loop()
        with caplog.at_level(logging.WARNING, logger="finrpa.runs.workers"):
            dead = await workers.supervise_once(app.database.sessions, recover, 6.0, "live", terminator)

        assert dead == ["paused"]
        assert sessions_at_recovery == [0], "its sessions were ended before its runs were handed over"
        assert await asyncio.wait_for(waiter, 10) == "paused", "the live worker got the lock"
        with pytest.raises(Exception) as ended:
            await holder
        assert "terminat" in str(ended.value).lower() or "closed" in str(ended.value).lower()
        records = [r for r in caplog.records if getattr(r, "worker", None) == "paused" and hasattr(r, "sessions")]
        assert records and records[0].supervisor == "live"
        assert records[0].sessions and all(s["gone"] for s in records[0].sessions)
        async with unit_of_work(app.database.sessions) as session:
            assert (await session.get(Worker, "paused")).status == "dead"  # type: ignore[union-attr]
            assert (await session.get(Worker, "live")).status == "alive"  # type: ignore[union-attr]
    finally:
        holder.cancel()
        await asyncio.gather(holder, return_exceptions=True)
        await terminator.dispose()
        await observer.dispose()
        await paused.dispose()


async def _lock_after_wait(app: App) -> str:
    async with unit_of_work(app.database.sessions) as session:
        return str((await session.execute(LOCK_ROW, {"id": "paused"})).scalar_one())


async def test_a_live_worker_s_sessions_are_left_alone(app: App) -> None:
    url = app.settings.resolved_database_url
    live_name = worker_application_name("live")
    other = open_tenant_database(url, application_name=worker_application_name("other"))
    terminator = SessionTerminator(url, live_name)
    try:
        await workers.register(other.sessions, "other", 1)  # opens a pooled session named after "other"
        await _silence(app, "paused", 60)
        before = await _sessions_named(other.engine, worker_application_name("other"))
        assert await workers.supervise_once(app.database.sessions, lambda ids: 0, 6.0, "live", terminator) == ["paused"]
        assert await _sessions_named(other.engine, worker_application_name("other")) == before >= 1
    finally:
        await terminator.dispose()
        await other.dispose()


async def test_a_lock_wait_that_reaches_lock_timeout_is_a_retryable_error(app: App) -> None:
    url = app.settings.resolved_database_url
    impatient = open_tenant_database(url, lock_timeout_s=0.3)
    try:
        async with app.database.engine.begin() as holder:
            await holder.execute(LOCK_ROW, {"id": "paused"})
            with pytest.raises(LockTimeoutError) as caught:
                async with unit_of_work(impatient.sessions) as session:
                    await session.execute(LOCK_ROW, {"id": "paused"})
            assert caught.value.retryable
        async with unit_of_work(impatient.sessions) as session:  # the pool's connection is fine afterwards
            assert (await session.execute(LOCK_ROW, {"id": "paused"})).scalar_one() == "paused"
    finally:
        await impatient.dispose()


async def test_the_run_path_tries_a_lock_timeout_again_until_the_lock_is_free(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("finrpa.runs.durable.LOCK_RETRY_INITIAL_S", 0.1)
    url = app.settings.resolved_database_url
    impatient = open_tenant_database(url, lock_timeout_s=0.3)
    attempts = 0

    async def claim() -> str:
        nonlocal attempts
        attempts += 1
        async with unit_of_work(impatient.sessions) as session:
            return str((await session.execute(LOCK_ROW, {"id": "paused"})).scalar_one())

    async def hold(seconds: float, locked: asyncio.Event) -> None:
        async with app.database.engine.begin() as holder:
            await holder.execute(LOCK_ROW, {"id": "paused"})
            locked.set()
            await asyncio.sleep(seconds)

    try:
        locked = asyncio.Event()
        holding = asyncio.create_task(hold(1.2, locked))
        await locked.wait()
        assert await retry_lock_timeouts(claim, "test claim") == "paused"
        await holding
        assert attempts >= 2, "the first attempts timed out while the lock was held"
    finally:
        await impatient.dispose()


async def test_a_supervisor_that_was_itself_declared_dead_judges_nobody(app: App) -> None:
    """A worker resumed after a long pause may run a supervision round before its heartbeat tells it to stop."""
    terminator = SessionTerminator(app.settings.resolved_database_url, worker_application_name("paused"))
    try:
        async with unit_of_work(app.database.sessions) as session:
            await session.execute(update(Worker).where(Worker.id == "paused").values(status="dead"))
        await _silence(app, "live", 60)
        assert await workers.supervise_once(app.database.sessions, lambda ids: 0, 6.0, "paused", terminator) == []
        assert await _sessions_named(app.database.engine, worker_application_name("live")) >= 1
        async with unit_of_work(app.database.sessions) as session:
            assert (await session.get(Worker, "live")).status == "alive"  # type: ignore[union-attr]
    finally:
        await terminator.dispose()


async def test_a_worker_whose_session_was_ended_mid_heartbeat_learns_it_is_dead_and_stops(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    url = app.settings.resolved_database_url
    paused = open_tenant_database(url, application_name=worker_application_name("paused"))
    terminator = SessionTerminator(url, worker_application_name("live"))
    stop = asyncio.Event()
    caplog.set_level(logging.WARNING, logger="finrpa.runs.workers")
    try:
        async with app.database.engine.connect() as supervisor:
            transaction = await supervisor.begin()
            await supervisor.execute(update(Worker).where(Worker.id == "paused").values(status="dead"))
            beating = asyncio.create_task(workers.run_heartbeats(paused.sessions, "paused", stop, 0.2))
            await asyncio.sleep(1.0)  # its beat waits on the row the supervisor is changing
            ended = await terminator.terminate(["paused"])
            assert any(session.state == "active" for session in ended), "the beat was mid-statement"
            await transaction.commit()
        await asyncio.wait_for(beating, 10)  # returns instead of failing on the ended session
        assert stop.is_set(), "it stops: its runs belong to other workers now"
        assert any("heartbeat of worker paused failed" in r.getMessage() for r in caplog.records)
    finally:
        stop.set()
        await terminator.dispose()
        await paused.dispose()


async def test_a_worker_declared_dead_hands_over_what_it_took_meanwhile_when_it_stops(app: App) -> None:
    """Declared dead while it was still taking runs from the queue, a worker that then stops is handed over again,
    so a run it took in between is not left pending under a worker nobody recovers."""
    async with unit_of_work(app.database.sessions) as session:
        await session.execute(update(Worker).where(Worker.id == "paused").values(status="dead"))
    recovered: list[list[str]] = []

    def recover(ids: list[str]) -> int:
        recovered.append(ids)
        return 0

    assert await workers.supervise_once(app.database.sessions, recover, 6.0, "live") == []  # dead: already moved
    await workers.mark_stopped(app.database.sessions, "paused")
    assert await workers.supervise_once(app.database.sessions, recover, 6.0, "live") == ["paused"]
    assert recovered == [["paused"]]
    async with unit_of_work(app.database.sessions) as session:
        assert (await session.get(Worker, "paused")).status == "dead"  # type: ignore[union-attr]
