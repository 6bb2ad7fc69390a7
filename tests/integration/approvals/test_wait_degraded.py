"""When Redis is unreachable, or the subscription's connection drops mid-wait, the waiter polls the database
and still sees the decision; a decision whose wake-up cannot be published is still committed."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest
from redis.asyncio import Redis

from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.waiter import WaitHooks
from finrpa.bus import RedisBus
from finrpa.tenancy import use_tenant
from tests.integration.approvals.support import Desk, closed_port_url, redis_url

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_with_redis_unreachable_the_waiter_polls_and_sees_the_decision(
    memory_desk: Desk, caplog: pytest.LogCaptureFixture
) -> None:
    desk = memory_desk
    down = RedisBus(closed_port_url(), timeout_s=0.5)
    approval = await desk.ask("high")

    async def approve_later() -> None:
        await asyncio.sleep(0.3)
        await desk.decide("alice", approval.id)  # its wake-up goes to another bus: only polling can see it

    background = asyncio.create_task(approve_later())
    try:
        assert await desk.wait(approval.id, bus=down) is ApprovalStatus.APPROVED
    finally:
        await background
        await down.close()
    assert "approvals.wait_polls" in caplog.messages


async def test_a_decision_is_committed_even_when_its_wake_up_cannot_be_published(memory_desk: Desk) -> None:
    desk = memory_desk
    down = RedisBus(closed_port_url(), timeout_s=0.5)
    approval = await desk.ask("high")
    principal = desk.principals["alice"]
    try:
        with use_tenant(principal.tenant_context()):
            async with desk.transaction(bus=down) as service:
                decided = await service.decide(approval.id, principal, True)
        assert service.wakeups == ()  # attempted, failed, logged: waiters read the database anyway
    finally:
        await down.close()
    assert decided.status is ApprovalStatus.APPROVED
    assert (await desk.get(approval.id)).status is ApprovalStatus.APPROVED


@pytest.mark.skipif(redis_url() is None, reason="needs FINRPA_TEST_REDIS_URL (a real Redis)")
async def test_a_subscription_dropped_mid_wait_falls_back_to_polling(
    memory_desk: Desk, caplog: pytest.LogCaptureFixture
) -> None:
    desk = memory_desk
    url = redis_url()
    assert url is not None
    name = f"finrpa-test-{uuid.uuid4().hex[:10]}"
    bus = RedisBus(url, namespace=f"{name}:", client_name=name)
    admin = Redis.from_url(url, decode_responses=True)
    approval = await desk.ask("high")
    killed: list[int] = []

    async def drop_then_decide() -> None:
        for client in await admin.client_list():
            if client.get("name") == name:
                await admin.client_kill_filter(_id=client["id"])
                killed.append(int(client["id"]))
        await desk.decide("alice", approval.id)  # published on the desk's own bus: this waiter cannot hear it

    try:
        status = await desk.wait(approval.id, bus=bus, hooks=WaitHooks(after_read=drop_then_decide))
    finally:
        await bus.close()
        await admin.aclose()
    assert killed, "the waiter's subscription connection was not found"
    assert status is ApprovalStatus.APPROVED
    assert "approvals.wait_polls" in caplog.messages  # it noticed the drop, not the 10 s limit


@pytest.fixture
def own_redis() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of this test alone (on a free port), so the test can stop it; never the shared one."""
    server_path = shutil.which("redis-server")
    if server_path is None:
        pytest.skip("needs redis-server on PATH")
    url = closed_port_url()
    port = url.rsplit(":", 1)[1].split("/")[0]
    command = [server_path, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", int(port))) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start listening within 5 s")
        yield url, server
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()


async def test_redis_stopped_during_the_wait_the_waiter_still_sees_the_decision_by_polling(
    memory_desk: Desk, own_redis: tuple[str, subprocess.Popen[bytes]], caplog: pytest.LogCaptureFixture
) -> None:
    desk = memory_desk
    url, server = own_redis
    bus = RedisBus(url, timeout_s=0.5)
    approval = await desk.ask("high")
    principal = desk.principals["alice"]

    async def stop_redis_then_decide() -> None:
        server.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.wait, 10)
        with use_tenant(principal.tenant_context()):
            async with desk.transaction(bus=bus) as service:  # its wake-up cannot be published: Redis is gone
                await service.decide(approval.id, principal, True)

    try:
        status = await desk.wait(approval.id, bus=bus, hooks=WaitHooks(after_read=stop_redis_then_decide))
    finally:
        await bus.close()
    assert server.returncode is not None, "redis-server was stopped during the wait"
    assert status is ApprovalStatus.APPROVED
    assert "approvals.wait_polls" in caplog.messages  # it noticed Redis was gone, not the 10 s limit
