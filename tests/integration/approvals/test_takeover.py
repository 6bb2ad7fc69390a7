"""The NEEDS_HUMAN panel: where the run stopped, why, the last screenshot (by an audited link), the LLM's raw
output and errors — and nothing once a person has resolved it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from typer.testing import CliRunner

from finrpa.agents.events import EventType
from finrpa.approvals.takeover import human_takeover_view
from finrpa.audit.schemas import AuditQuery
from finrpa.cli import app
from finrpa.config import get_settings
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import ConflictError
from finrpa.runs.repository import NewEvent, RunRepository
from finrpa.runs.service import RunRequest, create_run, resolve_needs_human
from finrpa.workflows.loader import get_template
from tests.integration.approvals.support import Desk

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64  # stands in for a masked screenshot
ARGUMENTS = {
    "bank_url": "http://127.0.0.1:8600/bank/login",
    "username": "finance01",
    "password": "secret://bank/password",
    "account_number": "6222021234567890",
    "start_date": "2026-01-01",
    "end_date": "2026-01-31",
}


async def _stuck_run(desk: Desk, needs_human: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A run whose query step stopped in NEEDS_HUMAN after one recorded action with a screenshot."""
    with desk.as_run():
        async with unit_of_work(desk.backend.db.sessions) as session:
            run = await create_run(session, RunRequest(get_template("bank_statement_download"), ARGUMENTS))
            run_id, subtask = run.id, (await RunRepository(session).events(run.id))[0].payload["plan"]["subtasks"][1]
        shot = await desk.audit.store_screenshot(desk.org_id, run_id, 1, "after", PNG)
        stored = {"bucket": shot.bucket, "key": shot.key, "sha256": shot.sha256, "size": shot.size}
        events = [
            NewEvent(EventType.SUBTASK_STARTED, {"subtask_id": subtask["subtask_id"], "attempt": 1}),
            NewEvent(
                EventType.ACTION, {"subtask_id": subtask["subtask_id"], "kind": "click", "screenshot_after": stored}
            ),
            NewEvent(EventType.NEEDS_HUMAN, {"subtask_id": subtask["subtask_id"], **needs_human}),
        ]
        async with unit_of_work(desk.backend.db.sessions) as session:
            repository = RunRepository(session)
            await repository.append_events(await repository.get(run_id), events)
    return run_id, stored


async def test_the_panel_shows_where_and_why_the_run_stopped(memory_desk: Desk) -> None:
    desk = memory_desk
    run_id, shot = await _stuck_run(
        desk,
        {
            "reason": "LLM output failed validation 3 times",
            "url": "http://127.0.0.1:8600/bank/statement",
            "error_code": "llm_invalid_output",
            "llm_raw_output": '{"action": "fill", "value": "6222021234567890"',
            "errors": ["Expecting ',' delimiter: line 1 column 45", "missing field 'target'"],
        },
    )
    with desk.as_run():
        async with unit_of_work(desk.backend.db.sessions) as session:
            view = await human_takeover_view(session, run_id, audit=desk.audit, viewer="alice")

    assert (view.status.value, view.step, view.reason) == (
        "NEEDS_HUMAN",
        "query",
        "LLM output failed validation 3 times",
    )
    assert (view.url, view.error_code) == ("http://127.0.0.1:8600/bank/statement", "llm_invalid_output")
    assert view.errors == ("Expecting ',' delimiter: line 1 column 45", "missing field 'target'")
    assert view.llm_raw_output is not None and "7890" in view.llm_raw_output
    assert "6222021234567890" not in view.llm_raw_output  # page text quoted by the model is masked
    assert view.choices == ("skip", "mark_done", "retry", "abort")
    assert view.last_screenshot is not None and view.last_screenshot.evidence.sha256 == shot["sha256"]
    assert shot["key"] in view.last_screenshot.url

    with desk.as_run():
        async with unit_of_work(desk.backend.db.sessions) as session:
            page = await desk.audit.search(session, desk.org_id, AuditQuery(task_id=run_id))
    assert [(row.action_type, row.executor) for row in page.items] == [("LINK_ISSUED", "human:alice")]


async def test_after_a_person_resolved_it_there_is_nothing_to_take_over(memory_desk: Desk) -> None:
    desk = memory_desk
    run_id, _ = await _stuck_run(desk, {"reason": "captcha needs a person"})
    with desk.as_run():
        async with unit_of_work(desk.backend.db.sessions) as session:
            view = await human_takeover_view(session, run_id, audit=desk.audit, viewer="olga")
            assert view.last_screenshot is not None  # found on the earlier action event
            await resolve_needs_human(session, run_id, "retry", user_id=desk.user_id("olga"), audit=desk.audit)
        async with unit_of_work(desk.backend.db.sessions) as session:
            with pytest.raises(ConflictError, match="not waiting for a person"):
                await human_takeover_view(session, run_id, audit=desk.audit, viewer="olga")


async def test_the_panel_on_the_command_line(memory_desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = memory_desk
    run_id, _ = await _stuck_run(desk, {"reason": "captcha needs a person", "url": "http://127.0.0.1:8600/bank"})
    monkeypatch.setenv("FINRPA_DATABASE_URL", desk.backend.url)
    monkeypatch.setenv("FINRPA_DATA_DIR", str(desk.settings.data_dir))
    get_settings.cache_clear()
    args = ["approvals", "takeover", run_id, "--user", "olga", "--org", desk.org.org.slug]
    result = await asyncio.to_thread(CliRunner().invoke, app, args)
    assert result.exit_code == 0, result.output
    assert "reason   captcha needs a person" in result.output and "screen   http" in result.output
    assert f"finrpa tasks resolve {run_id} --action skip|mark_done|retry|abort" in result.output
