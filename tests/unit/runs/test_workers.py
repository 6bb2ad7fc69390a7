"""Worker session names: each worker's PostgreSQL sessions carry a name the supervisor derives from the worker id
alone, which PostgreSQL keeps as is (at most 63 bytes of printable ASCII)."""

from __future__ import annotations

import pytest

from finrpa.db.engine import check_application_name
from finrpa.runs.workers import SessionTerminator, worker_application_name


def test_a_worker_s_sessions_are_named_after_it() -> None:
    assert worker_application_name("bank-host-4711") == "finrpa-worker:bank-host-4711"


@pytest.mark.parametrize("worker_id", ["h" * 50, "h" * 200, "工作机-01", "tab\there"])
def test_a_name_postgresql_would_change_is_shortened_to_one_it_keeps_and_stays_distinct(worker_id: str) -> None:
    name = worker_application_name(worker_id)
    check_application_name(name)  # would raise: PostgreSQL cuts or rewrites such names, and they would not match
    assert name.startswith("finrpa-worker:")
    assert name == worker_application_name(worker_id), "the supervisor derives the same name"
    assert name != worker_application_name(worker_id + "x")


def test_the_longest_id_that_fits_is_kept_whole() -> None:
    assert worker_application_name("h" * 49) == "finrpa-worker:" + "h" * 49


@pytest.mark.parametrize("name", ["", "x" * 64, "名字", "line\nbreak"])
def test_names_postgresql_would_not_keep_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="application_name"):
        check_application_name(name)


async def test_on_sqlite_there_are_no_sessions_to_end() -> None:
    terminator = SessionTerminator("sqlite+aiosqlite:///unused.db", "finrpa-worker:w1")
    assert await terminator.terminate(["w2"]) == []
    await terminator.dispose()
