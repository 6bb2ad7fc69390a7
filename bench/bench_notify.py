"""Benchmark: the notification outbox on SQLite — enqueue latency inside a caller's transaction, and dispatch
throughput to a local signed-webhook receiver, compared with bare HTTP POSTs to the same receiver.

Run: .venv/bin/python bench/bench_notify.py
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from finrpa.config import get_settings
from finrpa.db.engine import unit_of_work
from finrpa.db.migrate import upgrade
from finrpa.notify import service
from finrpa.notify.dispatcher import Dispatcher, DispatcherConfig
from finrpa.notify.events import RunFailed
from finrpa.notify.outbox import enqueue
from finrpa.notify.render import RenderOptions
from finrpa.notify.retry import BackoffPolicy
from finrpa.notify.schemas import ChannelCreate
from finrpa.notify.secret_refs import EnvironmentSecretResolver
from finrpa.tenancy import TenantContext, TenantDatabase, open_tenant_database, use_tenant

ORG = "org-bench"
EVENTS = 300
CHANNELS = 3
SECRETS = EnvironmentSecretResolver({"FINRPA_NOTIFY_SECRET_BENCH": "bench-signing-secret-not-real"})


class _Ok(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        return


async def _setup(folder: Path, url: str) -> TenantDatabase:
    database_url = f"sqlite+aiosqlite:///{folder / 'bench.db'}"
    await upgrade(database_url, "notify@head")
    database = open_tenant_database(database_url)
    with use_tenant(TenantContext(org_id=ORG, org_wide=True)):
        for n in range(CHANNELS):
            config = {
                "kind": "webhook",
                "url": f"{url}/hook{n}",
                "secret": "secret://env/FINRPA_NOTIFY_SECRET_BENCH",
            }
            async with unit_of_work(database.sessions) as session:
                await service.add_channel(
                    session, ORG, ChannelCreate(name=f"c{n}", config=config), get_settings()
                )
    return database


async def _enqueue_latencies(database: TenantDatabase) -> list[float]:
    latencies = []
    with use_tenant(TenantContext(org_id=ORG, org_wide=True)):
        for n in range(EVENTS // CHANNELS):
            async with unit_of_work(database.sessions) as session:
                started = time.perf_counter()
                await enqueue(session, RunFailed(org_id=ORG, run_id=f"run-{n}", error="portal returned 503"))
                latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def _bare_posts(url: str, count: int) -> float:
    async with httpx.AsyncClient() as client:
        gate = asyncio.Semaphore(8)

        async def post(n: int) -> None:
            async with gate:
                (await client.post(f"{url}/hook0", content=b'{"n":%d}' % n)).raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(post(n) for n in range(count)))
        return time.perf_counter() - started


async def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as folder:
        database = await _setup(Path(folder), url)
        try:
            latencies = await _enqueue_latencies(database)
            config = DispatcherConfig(
                backoff=BackoffPolicy(),
                render=RenderOptions(dashboard_url="https://finrpa.bank.example"),
                batch_size=50,
                concurrency=8,
                allow_http=True,
            )
            dispatcher = Dispatcher(database.sessions, config=config, secrets=SECRETS)
            started = time.perf_counter()
            sent = 0
            while (report := await dispatcher.dispatch_due()).claimed:
                sent += report.sent
            outbox_s = time.perf_counter() - started
        finally:
            await database.dispose()
    bare_s = await _bare_posts(url, sent)
    server.shutdown()
    print(
        f"enqueue ({CHANNELS} channels, one transaction): median {statistics.median(latencies):.2f} ms, "
        f"p95 {statistics.quantiles(latencies, n=20)[18]:.2f} ms"
    )
    print(f"dispatch: {sent} signed webhook deliveries in {outbox_s:.2f} s = {sent / outbox_s:.0f}/s")
    print(
        f"bare POSTs to the same receiver: {sent / bare_s:.0f}/s; outbox cost ratio {outbox_s / bare_s:.1f}x"
    )


if __name__ == "__main__":
    asyncio.run(main())
