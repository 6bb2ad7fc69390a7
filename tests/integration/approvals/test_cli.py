"""``finrpa approvals``: an approver sees their queue, decides as themselves, and maker-checker holds."""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from finrpa.approvals.errors import ApproverNotEligibleError, RequesterCannotApproveError
from finrpa.cli import app
from finrpa.config import get_settings
from finrpa.exceptions import NotFoundError
from tests.integration.approvals.support import Desk

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def finrpa(memory_desk: Desk, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("FINRPA_DATABASE_URL", memory_desk.backend.url)
    monkeypatch.setenv("FINRPA_DATA_DIR", str(memory_desk.settings.data_dir))  # the same audit keys
    get_settings.cache_clear()
    return CliRunner()


async def invoke(runner: CliRunner, *args: str) -> str:
    result = await asyncio.to_thread(runner.invoke, app, list(args))
    if result.exception is not None:
        raise result.exception
    assert result.exit_code == 0, result.output
    return result.output


async def test_an_approver_works_through_their_queue_from_the_command_line(
    memory_desk: Desk, finrpa: CliRunner
) -> None:
    desk = memory_desk
    slug = desk.org.org.slug
    approval = await desk.ask("critical")

    queue = await invoke(finrpa, "approvals", "list", "--org", slug, "--user", "alice")
    assert approval.id in queue and "critical" in queue and "0/2" in queue
    assert "Nothing is waiting for vera" in await invoke(finrpa, "approvals", "list", "--org", slug, "--user", "vera")

    with pytest.raises(RequesterCannotApproveError):
        await invoke(finrpa, "approvals", "decide", approval.id, "--approve", "--user", "olga", "--org", slug)
    with pytest.raises(ApproverNotEligibleError):  # a viewer of ops sees it, may not decide it
        await invoke(finrpa, "approvals", "decide", approval.id, "--approve", "--user", "vera", "--org", slug)
    with pytest.raises(NotFoundError):  # an approver of another department does not even see it
        await invoke(finrpa, "approvals", "decide", approval.id, "--approve", "--user", "rita", "--org", slug)

    first = await invoke(finrpa, "approvals", "decide", approval.id, "--approve", "--user", "alice", "--org", slug)
    assert "PENDING (1/2 approvals)" in first
    second = await invoke(
        finrpa, "approvals", "decide", approval.id, "--approve", "--user", "bob", "--org", slug, "--comment", "核对无误"
    )
    assert "APPROVED (2/2 approvals)" in second

    shown = await invoke(finrpa, "approvals", "show", approval.id, "--org", slug)
    assert "************7890" in shown and "6222021234567890" not in shown
    assert "核对无误" in shown and shown.count("decision   approve") == 2
    assert approval.id in await invoke(finrpa, "approvals", "list", "--org", slug, "--status", "approved")


async def test_expire_times_out_nothing_before_the_deadline(memory_desk: Desk, finrpa: CliRunner) -> None:
    desk = memory_desk
    approval = await desk.ask("high")
    assert "0 approval request(s) timed out." in await invoke(finrpa, "approvals", "expire", "--org", desk.org.org.slug)
    assert (await desk.get(approval.id)).status.value == "PENDING"
