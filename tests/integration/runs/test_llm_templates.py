"""Templates in LLM mode (finrpa.runs.llm_mode) on the real run path, in headless Chromium against the sandbox
bank, with the scripted LLM (tests/fixtures/template_operator.py) answering through the real SDK, on SQLite and
PostgreSQL:

* the statement download completes with its CSV, the LLM having opened the statement page, filled the query
  and submitted it; a second run is served by the action cache and makes fewer LLM calls (none);
* the payment completes after an approver's approval, paid exactly once in the sandbox with the reference the
  run recorded, the LLM having opened the payment page; a warm run makes fewer calls than the cold one;
* on layout v2, whose statement form lives in a frame, the LLM is shown the form only once the frame has loaded,
  also when the frame loads late (a busy machine): it neither reopens the page it is on nor is its reopening
  cached and replayed until the step budget runs out;
* an LLM-mode run records its mode and its LLM calls are counted for its template; an unknown mode is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import select

from finrpa.agents.plan import TaskStatus
from finrpa.approvals.models import ApprovalRequest, ApprovalStatus
from finrpa.browser import BrowserManager
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import ValidationFailedError
from finrpa.llm.models import LLMCall
from finrpa.runs.models import Run
from finrpa.runs.service import RunRequest, create_run
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.workflows.loader import get_template
from tests.fixtures.browser import SlowFrameScripts
from tests.fixtures.databases import backends, fresh_database
from tests.fixtures.llm_server import ScriptedLLMServer
from tests.fixtures.llm_template_runs import TEMPLATE_CASES, LLMRunPath, llm_run_path, run_errors, run_in_llm_mode
from tests.fixtures.template_operator import TemplateOperator
from tests.integration.runs.conftest import configure, reset, sandbox_state

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest.fixture(scope="module")
def operator_llm() -> Iterator[tuple[ScriptedLLMServer, TemplateOperator]]:
    operator = TemplateOperator()
    with ScriptedLLMServer() as server:
        server.set_handler(operator)
        yield server, operator


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def path(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    manager: BrowserManager,
    operator_llm: tuple[ScriptedLLMServer, TemplateOperator],
) -> AsyncIterator[LLMRunPath]:
    async with fresh_database(request.param, tmp_path) as url:
        async with llm_run_path(operator_llm[0], url, tmp_path / "var", manager) as run_path:
            yield run_path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def slow_frames() -> AsyncIterator[BrowserManager]:
    """A Chromium whose runs get the sandbox's script late inside frames: v2's statement form frame stays empty
    for two seconds after the page around it is parsed."""
    manager = SlowFrameScripts("**/static/sandbox.js", delay_s=2.0)
    await manager.start()
    yield manager
    await manager.close()


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def slow_frames_path(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    slow_frames: BrowserManager,
    operator_llm: tuple[ScriptedLLMServer, TemplateOperator],
) -> AsyncIterator[LLMRunPath]:
    async with fresh_database(request.param, tmp_path) as url:
        async with llm_run_path(operator_llm[0], url, tmp_path / "var", slow_frames) as run_path:
            yield run_path


async def _calls_of(path: LLMRunPath, run_id: str) -> list[LLMCall]:
    with system_context("test: the run's llm_calls rows", org_id=path.org_id):
        async with unit_of_work(path.app.database.sessions) as session:
            rows = await session.execute(select(LLMCall).where(LLMCall.org_id == path.org_id, LLMCall.run_id == run_id))
            return list(rows.scalars())


async def test_statement_download_in_llm_mode_completes_and_a_warm_run_asks_the_llm_less(
    path: LLMRunPath, sandbox: SandboxServer, operator_llm: tuple[ScriptedLLMServer, TemplateOperator]
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    case = TEMPLATE_CASES["bank_statement_download"]
    folder = path.app.settings.data_dir
    asked = operator_llm[1].decisions
    cold = await run_in_llm_mode(path, case.template, case.arguments(sandbox.base_url, folder, 0, 0))
    assert cold.state.status is TaskStatus.COMPLETED, await run_errors(path, cold.run_id)
    case.check(sandbox_state(sandbox), cold.results, folder)
    # The query was the LLM's work: every decision a recorded SDK call, none of them a cache hit.
    assert cold.calls >= 4 and cold.cache_hits == 0 and cold.tokens > 0
    assert operator_llm[1].decisions - asked == cold.calls
    assert cold.results["query"]["completed_by"] == "code" and cold.results["query"]["llm_decisions"] == cold.calls
    rows = await _calls_of(path, cold.run_id)
    assert {row.template_id for row in rows} == {"bank_statement_download"} and not any(r.cached for r in rows)

    warm = await run_in_llm_mode(path, case.template, case.arguments(sandbox.base_url, folder, 0, 1))
    assert warm.state.status is TaskStatus.COMPLETED, await run_errors(path, warm.run_id)
    case.check(sandbox_state(sandbox), warm.results, folder)
    assert warm.calls < cold.calls
    assert warm.cache_hits >= 1 and warm.results["query"]["cache_hits"] >= 1


async def test_statement_download_in_llm_mode_completes_on_the_renamed_layout_v2(
    path: LLMRunPath, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v2", error_rate=0.0)
    try:
        case = TEMPLATE_CASES["bank_statement_download"]
        folder = path.app.settings.data_dir
        run = await run_in_llm_mode(path, case.template, case.arguments(sandbox.base_url, folder, 0, 2))
        assert run.state.status is TaskStatus.COMPLETED, await run_errors(path, run.run_id)
        case.check(sandbox_state(sandbox), run.results, folder)
        assert run.results["query"]["completed_by"] == "code"  # the v1 landmarks held on v2's renamed page
    finally:
        configure(sandbox, layout="v1", error_rate=0.0)


async def test_statement_download_in_llm_mode_on_v2_waits_for_its_form_frame_to_load(
    slow_frames_path: LLMRunPath, sandbox: SandboxServer, operator_llm: tuple[ScriptedLLMServer, TemplateOperator]
) -> None:
    path = slow_frames_path
    configure(sandbox, layout="v2", error_rate=0.0)
    try:
        case = TEMPLATE_CASES["bank_statement_download"]
        folder = path.app.settings.data_dir
        shown = len(operator_llm[1].seen)
        run = await run_in_llm_mode(path, case.template, case.arguments(sandbox.base_url, folder, 0, 3))
        assert run.state.status is TaskStatus.COMPLETED, await run_errors(path, run.run_id)
        case.check(sandbox_state(sandbox), run.results, folder)
        query = run.results["query"]
        assert query["completed_by"] == "code" and query["cache_hits"] == 0 and query["steps"] <= 6, query
        # Every statement page the LLM was shown held the form: it never decided on the page without it.
        statement_pages = [seen for seen in operator_llm[1].seen[shown:] if "/bank/statement" in seen.url]
        assert statement_pages and all(
            any(element.name == "检索" for element in seen.elements) for seen in statement_pages
        ), [[element.name for element in seen.elements] for seen in statement_pages]
    finally:
        configure(sandbox, layout="v1", error_rate=0.0)


async def test_payment_in_llm_mode_is_approved_and_paid_once_and_a_warm_run_asks_the_llm_less(
    path: LLMRunPath, sandbox: SandboxServer
) -> None:
    configure(sandbox, layout="v1", error_rate=0.0)
    reset(sandbox)
    case = TEMPLATE_CASES["bank_payment_submission"]
    folder = path.app.settings.data_dir
    figures = []
    for number in range(2):
        arguments = case.arguments(sandbox.base_url, folder, 0, number)
        run = await run_in_llm_mode(path, case.template, arguments)
        assert run.state.status is TaskStatus.COMPLETED, await run_errors(path, run.run_id)
        case.check(sandbox_state(sandbox), run.results, folder)
        assert run.results["pay.open"]["completed_by"] == "code"
        with system_context("test: the run's approval", org_id=path.org_id):
            async with unit_of_work(path.app.database.sessions) as session:
                approvals = (
                    await session.execute(select(ApprovalRequest).where(ApprovalRequest.run_id == run.run_id))
                ).scalars()
                assert [a.status for a in approvals] == [ApprovalStatus.APPROVED.value]
                stored = (await session.execute(select(Run).where(Run.id == run.run_id))).scalar_one()
                assert stored.versions["mode"] == "llm" and stored.template_id == case.template
        figures.append(run)
    cold, warm = figures
    assert cold.calls >= 1 and warm.calls < cold.calls and warm.cache_hits >= 1
    paid = [p for p in sandbox_state(sandbox)["payments"] if p["purpose"].startswith("INV-LLM-")]
    assert len(paid) == 2


async def test_an_unknown_run_mode_is_refused(path: LLMRunPath) -> None:
    template = get_template("bank_statement_download")
    arguments = {"bank_url": "http://127.0.0.1:9/bank/login", "username": "u", "password": "secret://bank",
                 "account_number": "1", "start_date": "2024-01-01", "end_date": "2024-03-31"}  # fmt: skip
    with system_context("test: start a run", org_id=path.org_id):
        async with unit_of_work(path.app.database.sessions) as session:
            with pytest.raises(ValidationFailedError, match="Unknown run mode 'agent'"):
                await create_run(session, RunRequest(template, arguments, mode="agent"))
