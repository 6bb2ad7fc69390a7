"""The dashboard against a real `finrpa serve` subprocess: a seeded organisation (operator, approver, auditor and
admin with passwords made up per run), the sandbox portals in this process, and one headless Chromium for the
package. Screenshots go to the test's temporary folder, and to docs/screenshots/ui-*.png when
FINRPA_UPDATE_SCREENSHOTS=1."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from finrpa.bootstrap import open_app
from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.commands.demo import DEMO_ACCOUNT, DEMO_PERIOD, DEMO_USER
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.vault.service import VaultService

REPOSITORY = Path(__file__).resolve().parents[3]
WEB_DIST = REPOSITORY / "web" / "dist"
SCREENSHOT_DIR = REPOSITORY / "docs" / "screenshots"
ORG_SLUG = "e2e-bank"
BANK_SECRET = "sandbox-bank"  # the vault entry holding the sandbox bank's published demo password
SERVE_START_S = 180.0
RUN_TIMEOUT_S = 240.0

# username → (display name, role in the ops department or None for the org admin)
USERS: dict[str, tuple[str, Role | None]] = {
    "operator": ("张经办", Role.OPERATOR),
    "approver": ("赵复核", Role.APPROVER),
    "auditor": ("王审计", Role.AUDITOR),
    "admin": ("李管理", None),
}


@dataclass
class Stack:
    base_url: str
    sandbox_url: str
    org_slug: str
    dept_id: str
    passwords: dict[str, str]
    data_dir: Path
    log_path: Path
    sandbox: SandboxServer


@dataclass
class Screenshots:
    folder: Path
    publish: bool
    saved: list[Path] = field(default_factory=list)

    def save(self, page: Page, name: str, *, full_page: bool = True) -> Path:
        target = self.folder / f"ui-{name}.png"
        page.screenshot(path=str(target), full_page=full_page)
        if self.publish:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            (SCREENSHOT_DIR / target.name).write_bytes(target.read_bytes())
        self.saved.append(target)
        return target


async def _seed(settings: Settings) -> tuple[str, dict[str, str]]:
    """The organisation, its ops department, one user per role, and the sandbox bank's password in the vault."""
    passwords = {username: f"E2e-{secrets.token_urlsafe(12)}" for username in USERS}
    async with open_app(settings, auto_migrate=True) as app:
        with system_context("e2e: create the organisation"):
            async with unit_of_work(app.database.sessions) as session:
                org = await DirectoryService(session, settings).create_organization(
                    Principal.platform("-", "e2e"), slug=ORG_SLUG, name="端到端测试银行"
                )
                org_id = org.id
        actor = Principal.platform(org_id, "e2e")
        with system_context("e2e: seed the organisation", org_id=org_id):
            async with unit_of_work(app.database.sessions) as session:
                directory = DirectoryService(session, settings)
                dept = await directory.create_department(actor, org_id, code="ops", name="运营部")
                for username, (display_name, role) in USERS.items():
                    new = NewUser(username, display_name, passwords[username], org_admin=role is None)
                    user = await directory.create_user(actor, org_id, new)
                    if role is not None:
                        await directory.grant_role(actor, user, dept, role)
                await VaultService(session, settings).put_secret(
                    actor, org_id, BANK_SECRET, DEMO_PASSWORD, dept_id=dept.id, description="sandbox bank"
                )
                return dept.id, passwords


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_ready(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + SERVE_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"finrpa serve exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"finrpa serve did not become ready in {SERVE_START_S} s:\n{log_path.read_text()[-3000:]}")


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not (WEB_DIST / "index.html").is_file():
        pytest.fail("web/dist is not built: run `make setup` (or `cd web && npm ci && npm run build`).")
    root = tmp_path_factory.mktemp("dashboard")
    data_dir = root / "var"
    dept_id, passwords = asyncio.run(_seed(Settings(env="development", data_dir=data_dir)))
    sandbox = SandboxServer(SandboxConfig(port=0, expose_state=True))
    sandbox_url = sandbox.start()
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("FINRPA_")}
    env.update({"FINRPA_ENV": "development", "FINRPA_DATA_DIR": str(data_dir), "FINRPA_LOG_LEVEL": "WARNING"})
    log_path = root / "serve.log"
    command = [sys.executable, "-m", "finrpa.cli", "serve", "--port", str(port), "--web-dist", str(WEB_DIST)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_ready(base_url, process, log_path)
        yield Stack(base_url, sandbox_url, ORG_SLUG, dept_id, passwords, data_dir, log_path, sandbox)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        sandbox.stop()


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    location = locate_chromium()
    if location is None:
        pytest.fail("No Chromium found: install it (Debian: apt-get install chromium) or set FINRPA_CHROMIUM_PATH.")
    launched = playwright.chromium.launch(executable_path=location.path, args=list(CHROMIUM_ARGS), headless=True)
    yield launched
    launched.close()


@pytest.fixture(scope="package")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Screenshots:
    return Screenshots(tmp_path_factory.mktemp("screenshots"), os.environ.get("FINRPA_UPDATE_SCREENSHOTS") == "1")


def operator_headers(stack: Stack) -> dict[str, str]:
    login = {"org": stack.org_slug, "username": "operator", "password": stack.passwords["operator"]}
    token = httpx.post(f"{stack.base_url}/api/v1/auth/login", json=login, timeout=30).json()["access_token"]
    return {"Authorization": f"Bearer {token}"}


def start_run(stack: Stack, template_id: str, parameters: dict[str, str]) -> str:
    """Start a template over the HTTP API as the operator; returns the task id."""
    body = {"template_id": template_id, "parameters": parameters}
    created = httpx.post(f"{stack.base_url}/api/v1/tasks", json=body, headers=operator_headers(stack), timeout=30)
    assert created.status_code == 201, created.text
    task_id: str = created.json()["id"]
    return task_id


def start_statement_run(stack: Stack, account_number: str = DEMO_ACCOUNT) -> str:
    """Start bank_statement_download over the HTTP API as the operator; returns the task id."""
    parameters = {
        "bank_url": f"{stack.sandbox_url}/bank/login",
        "username": DEMO_USER,
        "password": f"secret://{BANK_SECRET}",
        "account_number": account_number,
        "start_date": DEMO_PERIOD[0].isoformat(),
        "end_date": DEMO_PERIOD[1].isoformat(),
    }
    return start_run(stack, "bank_statement_download", parameters)


def wait_for_status(stack: Stack, task_id: str, wanted: set[str]) -> str:
    """Poll the task until it reaches one of ``wanted`` (or any final status); returns that status."""
    headers = operator_headers(stack)
    final = {"COMPLETED", "FAILED", "ABORTED", "TIMEOUT"}
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        detail = httpx.get(f"{stack.base_url}/api/v1/tasks/{task_id}", headers=headers, timeout=30).json()
        if detail["status"] in wanted | final:
            status: str = detail["status"]
            return status
        time.sleep(1)
    raise AssertionError(f"task {task_id} did not reach {sorted(wanted)} in {RUN_TIMEOUT_S} s")


@pytest.fixture(scope="package")
def completed_run(stack: Stack) -> str:
    """A finished bank_statement_download run, started over the API, for tests that need evidence to exist."""
    task_id = start_statement_run(stack)
    status = wait_for_status(stack, task_id, {"COMPLETED"})
    assert status == "COMPLETED", f"the seeded run ended {status}; see {stack.log_path}"
    return task_id


ContextFactory = Callable[[str], BrowserContext]


@pytest.fixture
def new_context(browser: Browser) -> Iterator[ContextFactory]:
    """A factory of fresh browser contexts (own cookies and storage) in a language; all closed afterwards."""
    contexts: list[BrowserContext] = []

    def make(locale: str = "zh-CN") -> BrowserContext:
        context = browser.new_context(locale=locale, viewport={"width": 1440, "height": 900}, accept_downloads=True)
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def sign_in(page: Page, stack: Stack, username: str) -> None:
    """Sign in through the login page as a person would (zh-CN labels)."""
    page.goto(f"{stack.base_url}/")
    page.get_by_label("机构代码").fill(stack.org_slug)
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(stack.passwords[username])
    page.get_by_role("button", name="登 录").click()
    expect(page.get_by_test_id("current-user")).to_have_text(USERS[username][0])
