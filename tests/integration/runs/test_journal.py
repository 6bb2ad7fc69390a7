"""The run journal's commit: the fence, contiguous seq under concurrent commits, the checkpoint replaced in place,
the run row updated, and nothing written when the commit is refused or its transaction rolls back. SQLite and
PostgreSQL (as the application role, with the tenant sessions)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import select

from finrpa.agents.plan import TaskStatus
from finrpa.bootstrap import App, open_app
from finrpa.commands.demo import seed_demo_org
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import NotFoundError
from finrpa.runs import effects
from finrpa.runs.journal import StaleWorkerError, Transition, claim, commit_transition
from finrpa.runs.models import Run, RunCheckpoint, RunEvent
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.tenancy.context import system_context
from tests.fixtures.databases import backends, fresh_database

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass(frozen=True)
class Journal:
    app: App
    org_id: str
    dept_id: str

    async def new_run(self) -> str:
        with system_context("test: a run", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                run = Run(
                    org_id=self.org_id,
                    dept_id=self.dept_id,
                    status=TaskStatus.PENDING.value,
                    result={},
                    fencing_token=0,
                    goal="journal test",
                    arguments={},
                    versions={},
                )
                await RunRepository(session).add(run)
                return run.id

    async def commit(self, run_id: str, token: int, transition: Transition) -> int:
        with system_context("test: commit", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                return await commit_transition(session, run_id, token, transition)

    async def claim(self, run_id: str, worker: str) -> int:
        with system_context("test: claim", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                return await claim(session, run_id, worker)

    async def read(self, run_id: str) -> tuple[Run, list[RunEvent], RunCheckpoint | None]:
        with system_context("test: read", org_id=self.org_id):
            async with unit_of_work(self.app.database.sessions) as session:
                repository = RunRepository(session)
                return (
                    await repository.get(run_id),
                    await repository.events(run_id),
                    await repository.checkpoint(run_id),
                )


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def journal(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Journal]:
    folder: Path = tmp_path_factory.mktemp(f"journal-{request.param}")
    async with fresh_database(str(request.param), folder) as url:
        settings = Settings(data_dir=folder / "var", database_url=url)
        async with open_app(settings, auto_migrate=True) as app:
            demo = await seed_demo_org(app)
            yield Journal(app, demo.org_id, demo.dept_id)


def _events(label: str, count: int) -> list[NewEvent]:
    return [NewEvent("note", {"label": label, "n": n, "text": "账号 ✓"}) for n in range(count)]


async def test_a_commit_appends_events_in_order_and_replaces_the_checkpoint(journal: Journal) -> None:
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")  # seq 1: claimed
    first = Transition(events=_events("a", 3), state={"step": 1}, status="RUNNING", storage_state="sealed-1", url="u1")
    assert await journal.commit(run_id, token, first) == 4
    second = Transition(events=_events("b", 2), state={"step": 2}, status="RUNNING", storage_state="sealed-2", url="u2")
    assert await journal.commit(run_id, token, second) == 6
    run, events, checkpoint = await journal.read(run_id)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5, 6]
    assert [(e.type, e.payload.get("label"), e.payload.get("n")) for e in events[1:]] == [
        ("note", "a", 0),
        ("note", "a", 1),
        ("note", "a", 2),
        ("note", "b", 0),
        ("note", "b", 1),
    ]
    assert events[1].payload["text"] == "账号 ✓" and all(e.org_id == journal.org_id for e in events)
    assert checkpoint is not None
    assert (checkpoint.seq, checkpoint.state, checkpoint.storage_state, checkpoint.url) == (
        6,
        {"step": 2},
        "sealed-2",
        "u2",
    )
    assert checkpoint.org_id == journal.org_id
    assert run.status == "RUNNING" and run.finished_at is None


async def test_events_only_commit_keeps_the_checkpoint(journal: Journal) -> None:
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")
    await journal.commit(run_id, token, Transition(events=_events("a", 1), state={"step": 1}, url="u1"))
    assert await journal.commit(run_id, token, Transition(events=_events("b", 2))) == 4
    _, events, checkpoint = await journal.read(run_id)
    assert len(events) == 4
    assert checkpoint is not None and (checkpoint.seq, checkpoint.state, checkpoint.url) == (2, {"step": 1}, "u1")


async def test_a_final_commit_sets_status_error_result_and_finish_time(journal: Journal) -> None:
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")
    transition = Transition(
        events=_events("end", 1), state={"done": True}, status="FAILED", error_message="boom", result={"rows": 3}
    )
    await journal.commit(run_id, token, transition)
    run, _, _ = await journal.read(run_id)
    assert (run.status, run.error_message, run.result) == ("FAILED", "boom", {"rows": 3})
    assert run.finished_at is not None and run.updated_at >= run.finished_at


async def test_a_stale_worker_is_refused_and_writes_nothing(journal: Journal) -> None:
    run_id = await journal.new_run()
    old = await journal.claim(run_id, "w1")
    await journal.commit(run_id, old, Transition(events=_events("a", 1), state={"step": 1}, status="RUNNING"))
    new = await journal.claim(run_id, "w2")
    with pytest.raises(StaleWorkerError, match=f"token {new}, this worker has {old}"):
        await journal.commit(run_id, old, Transition(events=_events("late", 2), state={"late": 1}, status="FAILED"))
    run, events, checkpoint = await journal.read(run_id)
    assert [e.type for e in events] == ["claimed", "note", "claimed"]
    assert run.status == "RUNNING" and run.worker_id == "w2"
    assert checkpoint is not None and checkpoint.state == {"step": 1}
    assert await journal.commit(run_id, new, Transition(events=_events("b", 1))) == 4


async def test_an_unknown_or_foreign_run_is_not_found(journal: Journal) -> None:
    with pytest.raises(NotFoundError):
        await journal.commit("no-such-run", 0, Transition(events=_events("a", 1)))
    run_id = await journal.new_run()
    with system_context("test: another organisation", org_id="org-someone-else"):
        async with unit_of_work(journal.app.database.sessions) as session:
            with pytest.raises(NotFoundError):
                await commit_transition(session, run_id, 0, Transition(events=_events("x", 1), state={"x": 1}))
    _, events, checkpoint = await journal.read(run_id)
    assert events == [] and checkpoint is None


async def test_a_rolled_back_transaction_leaves_nothing(journal: Journal) -> None:
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")
    with system_context("test: rollback", org_id=journal.org_id):
        with pytest.raises(RuntimeError, match="after the commit's writes"):
            async with unit_of_work(journal.app.database.sessions) as session:
                await commit_transition(session, run_id, token, Transition(events=_events("a", 2), state={"s": 1}))
                raise RuntimeError("after the commit's writes")
    run, events, checkpoint = await journal.read(run_id)
    assert [e.type for e in events] == ["claimed"] and checkpoint is None and run.status == "PENDING"


async def test_concurrent_commits_of_one_run_keep_seq_contiguous(journal: Journal) -> None:
    """Commits racing for the run's lock: each reads the last seq only once it holds the lock."""
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")
    results = await asyncio.gather(
        *(journal.commit(run_id, token, Transition(events=_events(f"c{n}", 3), state={"n": n})) for n in range(8))
    )
    _, events, checkpoint = await journal.read(run_id)
    assert [e.seq for e in events] == list(range(1, 26))
    assert sorted(results) == [4 + 3 * n for n in range(8)]
    for start in range(1, 25, 3):  # each commit's events are together, in their order
        batch = events[start : start + 3]
        assert len({e.payload["label"] for e in batch}) == 1 and [e.payload["n"] for e in batch] == [0, 1, 2]
    assert checkpoint is not None and checkpoint.seq == 25


async def test_objects_loaded_in_the_session_see_the_commit(journal: Journal) -> None:
    run_id = await journal.new_run()
    token = await journal.claim(run_id, "w1")
    await journal.commit(run_id, token, Transition(events=[], state={"step": 1}, url="u1"))
    with system_context("test: same session", org_id=journal.org_id):
        async with unit_of_work(journal.app.database.sessions) as session:
            repository = RunRepository(session)
            run, checkpoint = await repository.get(run_id), await repository.checkpoint(run_id)
            transition = Transition(events=_events("a", 1), state={"step": 2}, status="COMPLETED", url="u2")
            await commit_transition(session, run_id, token, transition)
            assert run.status == "COMPLETED" and run.finished_at is not None
            assert checkpoint is not None
            assert (checkpoint.state, checkpoint.url, checkpoint.seq) == ({"step": 2}, "u2", 2)
            loaded = (await session.execute(select(RunCheckpoint).where(RunCheckpoint.run_id == run_id))).scalar_one()
            assert loaded.state == {"step": 2}


async def test_the_effect_ledger_checks_the_fence(journal: Journal) -> None:
    run_id = await journal.new_run()
    old = await journal.claim(run_id, "w1")
    key = effects.EffectKey(journal.org_id, "pay", f"biz-{run_id}")
    with system_context("test: effect", org_id=journal.org_id):
        async with unit_of_work(journal.app.database.sessions) as session:
            _, new = await effects.begin(
                session, key, run_id=run_id, subtask_id="s1", params_hash="h", fencing_token=old
            )
            assert new
        new_token = await journal.claim(run_id, "w2")
        async with unit_of_work(journal.app.database.sessions) as session:
            with pytest.raises(StaleWorkerError):
                await effects.settle(session, key, effects.EffectState.SUCCEEDED, run_id=run_id, fencing_token=old)
        async with unit_of_work(journal.app.database.sessions) as session:
            settled = await effects.settle(
                session, key, effects.EffectState.SUCCEEDED, run_id=run_id, fencing_token=new_token, external_ref="P1"
            )
            assert (settled.state, settled.external_ref) == ("succeeded", "P1")
        async with unit_of_work(journal.app.database.sessions) as session:
            with pytest.raises(NotFoundError):
                await effects.begin(
                    session, key, run_id="no-such-run", subtask_id="s", params_hash="h", fencing_token=0
                )
