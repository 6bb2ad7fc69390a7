"""Benchmark: what tenant isolation costs per query, and how long sign-in and a credential read take.

Scenarios, on SQLite and (when reachable) PostgreSQL, each the median of many runs:

* ``plain``        an ORM SELECT of one organisation's 50 departments, no tenancy (the owner, no hook)
* ``orm hook``     the same through TenantSession (criteria added by do_orm_execute, set_config per transaction)
* ``both walls``   the same as ``finrpa_app`` with Row-Level Security (PostgreSQL only)
* ``sign-in``      AuthService.login with production Argon2id costs (t=3, 64 MiB)
* ``secret read``  VaultService.resolve_secret including its credential_reads row, in one transaction

Run: .venv/bin/python bench/bench_tenancy.py   (PostgreSQL from FINRPA_BENCH_DATABASE_URL, else
FINRPA_TEST_DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/postgres; a temporary database is created
and dropped.)
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
import sqlalchemy as sa

from finrpa.config import Settings
from finrpa.db.engine import create_engine, session_factory
from finrpa.db.migrate import upgrade
from finrpa.identity.auth import AuthService
from finrpa.identity.models import Department, Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.tenancy import TenantContext, install_tenancy, open_tenant_database, system_context, use_tenant
from finrpa.vault.service import VaultService

QUERIES = 300
PASSWORD = "bench-pass-phrase-42"  # a benchmark account in a throw-away database


async def median_ms(action: Callable[[], Awaitable[object]], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def seed(url: str, settings: Settings) -> tuple[str, str, Principal]:
    database = open_tenant_database(url)
    try:
        async with database.sessions() as session, session.begin():
            directory = DirectoryService(session, settings)
            with system_context("bench: organisation"):
                org = await directory.create_organization(Principal.platform("-", "bench"), slug="bench", name="Bench")
            with system_context("bench", org_id=org.id):
                actor = Principal.platform(org.id, "bench")
                departments = [
                    await directory.create_department(actor, org.id, code=f"d{i}", name=f"Dept {i}") for i in range(50)
                ]
                user = await directory.create_user(actor, org.id, NewUser(username="olga", password=PASSWORD))
                await directory.grant_role(actor, user, departments[0], Role.OPERATOR)
                principal = await directory.load_principal(user)
                await VaultService(session, settings).put_secret(
                    actor, org.id, "portal/login", "bench-value", dept_id=departments[0].id
                )
        return org.id, org.slug, principal
    finally:
        await database.dispose()


async def bench_backend(name: str, url: str, settings: Settings) -> None:
    await upgrade(url)
    org_id, slug, olga = await seed(url, settings)
    ctx = TenantContext(org_id=org_id, user_id=olga.user_id, org_wide=True, reason="bench")
    owner = create_engine(url)
    plain, hooked = session_factory(owner), session_factory(owner)
    install_tenancy(hooked)
    app = open_tenant_database(url)

    def select_with(sessions: Callable[[], object]) -> Callable[[], Awaitable[object]]:
        async def run() -> object:
            async with sessions() as session:  # type: ignore[attr-defined]
                with use_tenant(ctx):
                    rows = (await session.scalars(sa.select(Department).where(Department.org_id == org_id))).all()
            assert len(rows) == 50
            return rows

        return run

    results = {"plain": await median_ms(select_with(plain), QUERIES)}
    results["orm hook"] = await median_ms(select_with(hooked), QUERIES)
    if name == "postgres":
        results["both walls"] = await median_ms(select_with(app.sessions), QUERIES)
    auth = AuthService(app.sessions, settings.model_copy(update={"login_rate_limit_attempts": 10_000}))
    results["sign-in"] = await median_ms(lambda: auth.login(slug, "olga", PASSWORD), 5)

    async def read_secret() -> object:
        async with app.sessions() as session, session.begin():
            with use_tenant(olga.tenant_context()):
                return await VaultService(session, settings).resolve_secret(
                    "secret://portal/login", purpose="bench", actor=olga
                )

    results["secret read"] = await median_ms(read_secret, 50)
    await owner.dispose()
    await app.dispose()
    base = results["plain"]
    for scenario, value in results.items():
        ratio = f"  ({value / base:.2f}x plain)" if scenario in ("orm hook", "both walls") else ""
        print(f"{name:<9} {scenario:<12} median {value:8.2f} ms{ratio}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(env="development", data_dir=Path(folder))
        await bench_backend("sqlite", f"sqlite+aiosqlite:///{folder}/bench.db", settings)
        admin = (
            os.environ.get("FINRPA_BENCH_DATABASE_URL")
            or os.environ.get("FINRPA_TEST_DATABASE_URL")
            or "postgresql://postgres@127.0.0.1:5432/postgres"
        )
        name = f"finrpa_bench_{uuid.uuid4().hex[:8]}"
        try:
            connection = await asyncpg.connect(admin)
        except (OSError, asyncpg.PostgresError) as exc:
            print(f"postgres  skipped ({exc})")
            return
        await connection.execute(f'CREATE DATABASE "{name}"')
        try:
            await bench_backend(
                "postgres", f"postgresql+asyncpg://{admin.split('://', 1)[1].rsplit('/', 1)[0]}/{name}", settings
            )
        finally:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await connection.close()


if __name__ == "__main__":
    asyncio.run(main())
