"""Requests to hosts outside a run's allowlist are aborted in the browser and reported as events."""

from __future__ import annotations

from pathlib import Path

import pytest

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
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_subresource_and_fetch_to_other_hosts_are_blocked_and_reported(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    seen: list[BrowserEvent] = []
    config = RunBrowserConfig(run_id="egress", downloads_dir=tmp_path, portal_urls=[static_site.url("egress.html")])
    run = await browser_manager.new_run(config, event_sink=seen.append)
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
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    seen: list[BrowserEvent] = []
    config = RunBrowserConfig(run_id="egress-nav", downloads_dir=tmp_path, portal_urls=[static_site.base_url])
    run = await browser_manager.new_run(config, event_sink=seen.append)
    try:
        controller = Controller(run, screenshots=False)
        with pytest.raises(EgressDeniedError, match="localhost is outside this run's allowed hosts"):
            await controller.navigate(static_site.alt_url("home.html"))
        assert run.active_tab.page.url == "about:blank"
    finally:
        await run.close()
    assert [e.host for e in seen if isinstance(e, EgressBlocked)] == ["localhost"]


async def test_loopback_is_not_allowed_unless_listed(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    config = RunBrowserConfig(run_id="egress-none", downloads_dir=tmp_path, portal_urls=["https://bank.example.com"])
    run = await browser_manager.new_run(config)
    try:
        with pytest.raises(EgressDeniedError):
            await Controller(run, screenshots=False).navigate(static_site.url("home.html"))
    finally:
        await run.close()
