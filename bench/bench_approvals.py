"""Benchmark: approval wake-up latency, from the commit of the deciding transaction to the waiter returning.

Three ways a waiter learns about a decision:

* redis       — Redis pub/sub (production): the decider publishes after its commit;
* in-process  — the embedded bus (``finrpa demo`` / ``finrpa serve``);
* polling     — Redis unreachable: the waiter reads the database with backoff 50 ms → 1 s.

Each sample: ask for approval, start a waiter and let it subscribe and read, wait a random moment (up to
50 ms; up to 2 s for polling so that the backoff is caught in every phase), decide, note the time right
after COMMIT, publish, and note when the waiter returns. Target (SPEC §C11, issue 10): p99 ≤ 50 ms with Redis.

Run: .venv/bin/python bench/bench_approvals.py
     (FINRPA_BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/<db> to measure on PostgreSQL;
      FINRPA_BENCH_REDIS_URL, default redis://127.0.0.1:6379/15)
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import socket
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from finrpa.approvals.service import ApprovalService
from finrpa.approvals.waiter import WaitHooks, WaitPolicy, wait_for_decision
from finrpa.audit.service import AuditService
from finrpa.bus import Bus, InProcessBus, RedisBus
from finrpa.config import Settings
from finrpa.db.base import new_id
from finrpa.db.engine import unit_of_work
from finrpa.db.migrate import upgrade
from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.tenancy import TenantDatabase, open_tenant_database, system_context, use_tenant

SAMPLES = {"redis": 200, "in-process": 200, "polling": 40}
MAX_DELAY_S = {"redis": 0.05, "in-process": 0.05, "polling": 2.0}
ACTION = {"skill": "FormFillSkill", "params": {"fields": {"收款账号": "6222021234567890", "金额": "1,500,000.00"}}}


@dataclass
class Org:
    org_id: str
    dept_id: str
    requester_id: str
    approver: Principal


async def make_org(database: TenantDatabase, settings: Settings) -> Org:
    async with unit_of_work(database.sessions) as session:
        directory = DirectoryService(session, settings)
        with system_context("bench: organisation"):
            org = await directory.create_organization(
                Principal.platform("-", "bench"), slug=f"b-{new_id()[:8]}", name="B"
            )
        with system_context("bench: people", org_id=org.id):
            actor = Principal.platform(org.id, "bench")
            ops = await directory.create_department(actor, org.id, code="ops", name="ops")
            olga = await directory.create_user(actor, org.id, NewUser(username="olga"))
            alice = await directory.create_user(actor, org.id, NewUser(username="alice"))
            await directory.grant_role(actor, olga, ops, Role.OPERATOR)
            await directory.grant_role(actor, alice, ops, Role.APPROVER)
            approver = await directory.load_principal(alice)
    return Org(org.id, ops.id, olga.id, approver)


async def sample(database: TenantDatabase, settings: Settings, audit: AuditService, bus: Bus, org: Org,
                 max_delay_s: float) -> float:  # fmt: skip
    with system_context("bench: run step", org_id=org.org_id):
        async with unit_of_work(database.sessions) as session:
            approval = await ApprovalService(session, settings, audit=audit).request(
                new_id(), "pay", ACTION, {"level": "high", "reasons": []}, requested_by=org.requester_id,
                dept_id=org.dept_id, bl_id=None, org_id=org.org_id,
            )  # fmt: skip
        ready = asyncio.Event()

        async def waiter() -> float:
            hooks = WaitHooks(after_read=_set(ready))
            await wait_for_decision(
                database.sessions, bus, approval.id, 30, audit=audit, settings=settings, hooks=hooks
            )
            return time.perf_counter()

        task = asyncio.create_task(waiter())
        await ready.wait()
    await asyncio.sleep(random.uniform(0, max_delay_s))
    with use_tenant(org.approver.tenant_context()):
        async with database.sessions() as session:
            async with session.begin():
                service = ApprovalService(session, settings, audit=audit, bus=bus)
                await service.decide(approval.id, org.approver, True)
            committed = time.perf_counter()
            await service.publish_wakeups()
    return (await task - committed) * 1000


def _set(event: asyncio.Event) -> Callable[[], Awaitable[None]]:
    async def hook() -> None:
        event.set()

    return hook


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"redis://127.0.0.1:{probe.getsockname()[1]}/0"


def report(label: str, samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    median = statistics.median(ordered)
    print(f"  {label:<12} n={len(ordered):<4} median {median:8.2f} ms   p99 {p99:8.2f} ms   max {ordered[-1]:8.2f} ms")
    return median, p99


async def main() -> None:
    logging.getLogger("finrpa").setLevel(logging.ERROR)  # the polling run logs every unpublished wake-up
    folder = Path(tempfile.mkdtemp(prefix="bench-approvals-"))
    url = os.environ.get("FINRPA_BENCH_DATABASE_URL") or f"sqlite+aiosqlite:///{folder / 'bench.db'}"
    redis_url = os.environ.get("FINRPA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
    settings = Settings(env="development", data_dir=folder / "var", database_url=url)
    await upgrade(settings.resolved_database_url)
    database = open_tenant_database(settings.resolved_database_url)
    audit = AuditService.from_settings(settings)
    buses: dict[str, Bus] = {
        "redis": RedisBus(redis_url, namespace=f"bench-{uuid.uuid4().hex[:8]}:"),
        "in-process": InProcessBus(),
        "polling": RedisBus(closed_port_url(), timeout_s=0.5),
    }
    policy = WaitPolicy.from_settings(settings)
    print(f"approval wake-up latency on {url.split(':')[0]}, commit → waiter returns")
    print(f"  polling backoff {policy.poll_initial_s * 1000:.0f} ms → {policy.poll_max_s * 1000:.0f} ms")
    results: dict[str, tuple[float, float]] = {}
    try:
        org = await make_org(database, settings)
        for mode, bus in buses.items():
            samples = [
                await sample(database, settings, audit, bus, org, MAX_DELAY_S[mode]) for _ in range(SAMPLES[mode])
            ]
            results[mode] = report(mode, samples)
    finally:
        for bus in buses.values():
            await bus.close()
        await database.dispose()
    redis_p99 = results["redis"][1]
    print(f"  polling/redis median ratio {results['polling'][0] / results['redis'][0]:.1f}x; "
          f"redis p99 {'meets' if redis_p99 <= 50 else 'MISSES'} the 50 ms target")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
