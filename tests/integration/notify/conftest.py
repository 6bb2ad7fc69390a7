"""A local HTTP receiver that records requests and plays scripted answers, and a migrated tenant database."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from sqlalchemy import text

from finrpa.config import get_settings
from finrpa.db.engine import create_engine, unit_of_work
from finrpa.db.migrate import upgrade
from finrpa.notify import service
from finrpa.notify.dispatcher import Dispatcher, DispatcherConfig
from finrpa.notify.render import RenderOptions
from finrpa.notify.retry import BackoffPolicy
from finrpa.notify.schemas import ChannelCreate
from finrpa.notify.secret_refs import EnvironmentSecretResolver
from finrpa.tenancy import TenantContext, TenantDatabase, open_tenant_database, use_tenant
from tests.fixtures.databases import backends, fresh_database

ORG = "org-a"
TEST_SECRETS = {
    "FINRPA_NOTIFY_SECRET_DINGTALK": "test-dingtalk-signing-not-real",
    "FINRPA_NOTIFY_SECRET_HOOK": "test-webhook-signing-not-real",
    "FINRPA_NOTIFY_SECRET_SMTP": "test-smtp-password-not-real",
}
ROBOT_OK = {"errcode": 0, "errmsg": "ok"}


@dataclass(frozen=True)
class Received:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)


@dataclass
class Answer:
    status: int = 200
    body: object = field(default_factory=lambda: ROBOT_OK)
    delay_s: float = 0.0


class Receiver:
    """Records every POST; answers with the next scripted Answer, or 200 ``{"errcode": 0}``."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.script: list[Answer] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def answer(self, *answers: Answer) -> None:
        with self._lock:
            self.script.extend(answers)

    def received(self, path: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if path is None or r.path == path]

    def _next(self, request: Received) -> Answer:
        with self._lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else Answer()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                parts = urlsplit(self.path)
                request = Received(
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={key.lower(): value for key, value in self.headers.items()},
                    body=self.rfile.read(length),
                )
                answer = receiver._next(request)
                time.sleep(answer.delay_s)
                payload = json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=backends())
async def notify_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    """One database per backend and test module with the notify branch (and what it depends on) migrated."""
    async with fresh_database(request.param, tmp_path_factory.mktemp("notify")) as url:
        await upgrade(url, "notify@head")
        yield url


@pytest.fixture
async def database(notify_database_url: str) -> AsyncIterator[TenantDatabase]:
    """Empty notify tables, with both tenancy walls up: the ORM filter, and on PostgreSQL the finrpa_app
    role under Row-Level Security."""
    owner = create_engine(notify_database_url)
    try:
        async with owner.begin() as connection:
            await connection.execute(text("DELETE FROM notify_deliveries"))
            await connection.execute(text("DELETE FROM notify_channels"))
    finally:
        await owner.dispose()
    database = open_tenant_database(notify_database_url)
    try:
        yield database
    finally:
        await database.dispose()


def acting_for(org_id: str = ORG) -> TenantContext:
    return TenantContext(org_id=org_id, user_id="user-1", org_wide=True)


def dispatcher_for(database: TenantDatabase, **overrides: object) -> Dispatcher:
    """A dispatcher with fast test settings and the test secrets."""
    options: dict[str, object] = {
        "backoff": BackoffPolicy(initial_s=30, multiplier=2, max_s=3600, max_attempts=4, jitter=0.0),
        "render": RenderOptions(dashboard_url="https://finrpa.bank.example"),
        "timeout_s": 5.0,
        "lease_s": 60,
        "allow_http": True,
    }
    options.update(overrides)
    config = DispatcherConfig(**options)  # type: ignore[arg-type]
    return Dispatcher(database.sessions, config=config, secrets=EnvironmentSecretResolver(TEST_SECRETS))


async def add_channel(database: TenantDatabase, create: ChannelCreate, org_id: str = ORG) -> str:
    with use_tenant(acting_for(org_id)):
        async with unit_of_work(database.sessions) as session:
            view = await service.add_channel(session, org_id, create, get_settings())
    return view.id
