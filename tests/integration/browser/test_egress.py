"""Requests to hosts outside a run's allowlist are aborted in the browser and reported as events — in both ways a
context can enforce it: its refusing proxy (the default) and a route over every request (when the worker reaches
the network through an outbound proxy named in its environment)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from finrpa.browser import (
    BrowserEvent,
    BrowserManager,
    Controller,
    EgressBlocked,
    EgressDeniedError,
    Expectation,
    RunBrowserConfig,
    WaitFor,
)
from finrpa.browser.locate import locate_chromium
from finrpa.browser.runtime import EgressMode
from tests.fixtures.browser import StaticSite
from tests.unit.browser.test_egress_allowlist import CASES

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["proxy", "route"])
async def egress_manager(request: pytest.FixtureRequest) -> AsyncIterator[BrowserManager]:
    if locate_chromium() is None:
        pytest.skip("Chromium is not installed")
    mode: EgressMode = request.param
    manager = BrowserManager(egress=mode)
    await manager.start()
    yield manager
    await manager.close()


async def test_subresource_and_fetch_to_other_hosts_are_blocked_and_reported(
    egress_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    seen: list[BrowserEvent] = []
    config = RunBrowserConfig(run_id="egress", downloads_dir=tmp_path, portal_urls=[static_site.url("egress.html")])
    run = await egress_manager.new_run(config, event_sink=seen.append)
    try:
        controller = Controller(run, screenshots=False)
        await controller.navigate(static_site.url("egress.html"))
        await controller.execute(WaitFor(condition=Expectation(text_visible="blocked"), timeout_ms=5000))
    finally:
        await run.close()

    blocked = {e.host: e for e in seen if isinstance(e, EgressBlocked)}
    assert set(blocked) == {"tracker.example.invalid", "localhost"}
    assert blocked["tracker.example.invalid"].resource_type == "image"
    assert blocked["localhost"].resource_type == "fetch"
    assert all(e.run_id == "egress" for e in blocked.values())


async def test_navigating_outside_the_allowlist_is_refused_before_the_browser_goes(
    egress_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    seen: list[BrowserEvent] = []
    config = RunBrowserConfig(run_id="egress-nav", downloads_dir=tmp_path, portal_urls=[static_site.base_url])
    run = await egress_manager.new_run(config, event_sink=seen.append)
    try:
        controller = Controller(run, screenshots=False)
        with pytest.raises(EgressDeniedError, match="localhost is outside this run's allowed hosts"):
            await controller.navigate(static_site.alt_url("home.html"))
        assert run.active_tab.page.url == "about:blank"
    finally:
        await run.close()
    assert [e.host for e in seen if isinstance(e, EgressBlocked)] == ["localhost"]


async def test_loopback_is_not_allowed_unless_listed(
    egress_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    config = RunBrowserConfig(run_id="egress-none", downloads_dir=tmp_path, portal_urls=["https://bank.example.com"])
    run = await egress_manager.new_run(config)
    try:
        with pytest.raises(EgressDeniedError):
            await Controller(run, screenshots=False).navigate(static_site.url("home.html"))
    finally:
        await run.close()


# The browser's own reading of the bypass list must agree with EgressAllowlist.allows_url on the unit CASES: every
# request to a host outside the list reaches the refusing proxy (and is reported), every allowed one goes direct.
# The cases' hosts become ``*.localhost`` names, which resolve to loopback inside Chromium: nothing here asks a DNS
# server or leaves the machine. URLs with credentials are left out (Chromium refuses to request them at all).
_LOCAL = {".example.com": ".localhost", ".example.net": ".localhost", ".evil.io": ".evil.localhost"}


def _local(url: str) -> str:
    for domain, local in _LOCAL.items():
        url = url.replace(domain, local)
    return url


BYPASS_CASES = [
    (_local(url), allowed)
    for url, allowed in CASES
    if url.split(":", 1)[0] in ("http", "https", "ws", "wss") and "@" not in url
]
_REQUEST = """url => new Promise(done => {
  setTimeout(done, 3000);
  if (url.startsWith("ws")) {
    const socket = new WebSocket(url);
    socket.onerror = socket.onopen = () => { socket.close(); done(); };
  } else {
    fetch(url, { mode: "no-cors" }).then(done, done);
  }
})"""


async def test_the_browser_refuses_exactly_the_hosts_outside_the_allowlist(
    egress_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    seen: list[BrowserEvent] = []
    site_port = static_site.base_url.rsplit(":", 1)[1]
    config = RunBrowserConfig(
        run_id="egress-bypass",
        downloads_dir=tmp_path,
        portal_urls=[_local("https://ebank.example.com/login")],
        extra_hosts=["127.0.0.1:8600", _local("*.cdn.example.net"), f"127.0.0.1:{site_port}"],
    )
    run = await egress_manager.new_run(config, event_sink=seen.append)
    try:
        controller = Controller(run, screenshots=False)
        await controller.navigate(static_site.url("home.html"))
        page = run.active_tab.page
        await asyncio.gather(*(page.evaluate(_REQUEST, url) for url, _ in BYPASS_CASES))
    finally:
        await run.close()

    def endpoint(url: str) -> tuple[str, int]:
        parts = urlsplit(url if "://" in url else f"//{url}")
        return (parts.hostname or ""), parts.port or {"https": 443, "wss": 443}.get(parts.scheme, 80)

    assert len(BYPASS_CASES) >= 10

    reported = {endpoint(e.url) for e in seen if isinstance(e, EgressBlocked)}
    assert reported == {endpoint(url) for url, allowed in BYPASS_CASES if not allowed}
    assert all(run.allowlist.allows_url(url) is allowed for url, allowed in BYPASS_CASES)
