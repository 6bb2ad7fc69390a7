"""`finrpa serve`'s embedded worker after a restart (SPEC §C11, §C13): a run left WAITING_APPROVAL is resumed, so
an approval decided while the process was down is honoured (paid once, not asked again); and the worker sweeps
overdue approval requests nobody waits on, as `finrpa worker` does. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from finrpa.api import ApiOptions, create_app
from finrpa.approvals.service import ApprovalService
from finrpa.audit.service import AuditService
from finrpa.config import Settings
from finrpa.db.base import new_id, utcnow
from finrpa.db.engine import unit_of_work
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy import open_tenant_database, system_context
from tests.fixtures.databases import backends
from tests.integration.api.world import Org, World, seeded_database

pytestmark = pytest.mark.asyncio(loop_scope="module")

HIGH_AMOUNT = "8800.00"  # one approver; below the critical threshold


@pytest.fixture(scope="module", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    from argon2 import PasswordHasher

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("finrpa.identity.passwords._HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        yield


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(port=0, expose_state=True))
    server.start()
    yield server
    server.stop()


@pytest_asyncio.fixture(loop_scope="module", params=backends())
async def seeded(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[Settings, dict[str, Org]]]:
    async with seeded_database(request.param, tmp_path) as (settings, orgs):
        yield settings.model_copy(update={"approval_sweep_s": 0.2, "approval_recheck_s": 0.5}), orgs


@asynccontextmanager
async def serving(settings: Settings, orgs: dict[str, Org], *, worker: bool) -> AsyncIterator[World]:
    """One `finrpa serve` process: the API app with (or without) its embedded worker, for as long as the block."""
    app = create_app(settings, ApiOptions(worker=worker, dispatcher=False, auto_migrate=False))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://finrpa.test") as client:
            yield World(app, client, settings, settings.resolved_database_url.split(":")[0], orgs)


async def task_of(world: World, task_id: str) -> dict[str, Any]:
    response = await world.call("GET", f"/api/v1/tasks/{task_id}", "a", "operator")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def until_status(world: World, task_id: str, wanted: set[str], deadline_s: float = 150) -> dict[str, Any]:
    started = time.monotonic()
    while time.monotonic() - started < deadline_s:
        task = await task_of(world, task_id)
        if task["status"] in wanted:
            return task
        if task["status"] in {"COMPLETED", "FAILED", "ABORTED", "NEEDS_HUMAN", "TIMEOUT"}:
            raise AssertionError(f"task ended {task['status']} ({task.get('error_message')}), wanted {wanted}")
        await asyncio.sleep(0.2)
    raise AssertionError(f"task {task_id} never reached {wanted}")


async def approvals_of(world: World, task_id: str) -> list[dict[str, Any]]:
    response = await world.call("GET", f"/api/v1/approvals?status=PENDING&run_id={task_id}", "a", "approver")
    found = response.json()["items"]
    for status in ("APPROVED", "REJECTED", "TIMEOUT", "CANCELLED"):
        response = await world.call("GET", f"/api/v1/approvals?status={status}&run_id={task_id}", "a", "approver")
        found += response.json()["items"]
    return list(found)


def payments_of(sandbox: SandboxServer, business_ref: str) -> list[dict[str, Any]]:
    state = httpx.get(f"{sandbox.base_url}/__sandbox__/state", timeout=10).json()
    return [p for p in state["payments"] if p["purpose"] == business_ref]


@pytest.mark.browser
async def test_a_run_left_waiting_for_approval_is_resumed_and_the_decision_taken_meanwhile_honoured(
    seeded: tuple[Settings, dict[str, Org]], sandbox: SandboxServer
) -> None:
    settings, orgs = seeded
    business_ref = f"EMB-{uuid.uuid4().hex[:10]}"
    async with serving(settings, orgs, worker=True) as first:
        stored = await first.call(
            "POST", "/api/v1/credentials", "a", "admin",
            json={"name": "sandbox-bank", "value": DEMO_PASSWORD, "dept_id": orgs["a"].departments["ops"]},
        )  # fmt: skip
        assert stored.status_code == 201, stored.text
        parameters = {
            "bank_url": f"{sandbox.base_url}/bank/login",
            "username": "corp_demo",
            "password": "secret://sandbox-bank",
            "payer_account": "1001020309000123456",
            "payee_name": "杭州示例电子商务有限公司",
            "payee_account": "3301040160000012345",
            "payee_bank": "招商银行",
            "amount": HIGH_AMOUNT,
            "business_ref": business_ref,
        }
        task = await first.create_task(template_id="bank_payment_submission", parameters=parameters)
        await until_status(first, task["id"], {"WAITING_APPROVAL"})
    # The process stopped while the run waited. An approver decides through another API process (no worker).
    async with serving(settings, orgs, worker=False) as between:
        (asked,) = await approvals_of(between, task["id"])
        detail = (await between.call("GET", f"/api/v1/approvals/{asked['id']}", "a", "approver")).json()
        body = {"verdict": "approve", "comment": "checked", "payload_hash": detail["payload_hash"]}
        decided = await between.call("POST", f"/api/v1/approvals/{asked['id']}/decision", "a", "approver", json=body)
        assert decided.status_code == 200 and decided.json()["status"] == "APPROVED", decided.text
        assert (await task_of(between, task["id"]))["status"] == "WAITING_APPROVAL"
        assert payments_of(sandbox, business_ref) == []

    async with serving(settings, orgs, worker=True) as restarted:
        final = await until_status(restarted, task["id"], {"COMPLETED"})
        assert [s["status"] for s in final["plan"]["subtasks"]] == ["SUCCESS"] * len(final["plan"]["subtasks"])
        assert [a["id"] for a in await approvals_of(restarted, task["id"])] == [asked["id"]], "not asked again"
        events = (await restarted.call("GET", f"/api/v1/tasks/{task['id']}/events", "a", "operator")).json()
    assert len(payments_of(sandbox, business_ref)) == 1
    decided_events = [e["payload"]["status"] for e in events["items"] if e["type"] == "approval_decided"]
    assert decided_events == ["APPROVED"]


async def test_the_embedded_worker_times_out_overdue_requests_nobody_waits_on(
    seeded: tuple[Settings, dict[str, Org]],
) -> None:
    settings, orgs = seeded
    org = orgs["a"]
    audit = AuditService.from_settings(settings)
    database = open_tenant_database(settings.resolved_database_url)
    try:
        with system_context("test: a request whose run nobody executes", org_id=org.id):
            async with unit_of_work(database.sessions) as session:
                two_hours_ago = utcnow() - timedelta(hours=2)  # asked two hours ago: long overdue
                service = ApprovalService(session, settings, audit=audit, clock=lambda: two_hours_ago)
                overdue = await service.request(
                    new_id(), "pay", {"skill": "bank_payment", "params": {"amount": "10.00"}},
                    {"level": "high", "reasons": ["test"]}, requested_by=org.users["operator"],
                    dept_id=org.departments["ops"], bl_id=None, org_id=org.id,
                )  # fmt: skip
    finally:
        await database.dispose()
    assert overdue.status.value == "PENDING"

    async with serving(settings, orgs, worker=True) as world:
        started, status = time.monotonic(), "PENDING"
        while status == "PENDING" and time.monotonic() - started < 30:
            await asyncio.sleep(0.1)
            status = (await world.call("GET", f"/api/v1/approvals/{overdue.id}", "a", "approver")).json()["status"]
        assert status == "TIMEOUT"
        audit_rows = await world.call("GET", f"/api/v1/audit/records?task_id={overdue.run_id}", "a", "auditor")
    assert audit_rows.status_code == 200, audit_rows.text
    kinds = [(row["action_type"], row["execution_result"]) for row in audit_rows.json()["items"]]
    assert ("APPROVAL_DECISION", "TIMEOUT") in kinds
