"""What a step's commit still pays for, and what it no longer repeats: screenshot fsyncs run in the background
and are awaited once before the commit; the browser's storage state is exported again only after the browser
acted, and sealed again only when it changed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from finrpa.browser import BrowserManager, Controller, RunBrowser, RunBrowserConfig
from finrpa.objectstore.links import LinkSigner, link_key
from finrpa.objectstore.local import DeferredSync, LocalObjectStore, deferred_sync
from finrpa.runs.browser_session import BrowserSession
from finrpa.runs.evidence import EvidenceRecorder
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


def _store(root: Path) -> LocalObjectStore:
    return LocalObjectStore(root, LinkSigner(link_key(b"k" * 32)), base_url="http://finrpa.test")


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


async def test_put_fsyncs_inline_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_fsyncs(monkeypatch)
    stored = await _store(tmp_path).put("a/one.png", PNG, "image/png", bucket="finrpa-audit-2026-11")
    assert len(calls) == 1
    assert (tmp_path / stored.bucket / stored.key).read_bytes() == PNG


async def test_deferred_puts_are_readable_at_once_and_durable_after_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, pending = _store(tmp_path), DeferredSync()
    calls = _count_fsyncs(monkeypatch)
    with deferred_sync(pending):
        first = await store.put("a/one.png", PNG, "image/png", bucket="finrpa-audit-2026-11")
        second = await store.put("a/two.png", PNG[::-1], "image/png", bucket="finrpa-audit-2026-11")
    assert (tmp_path / first.bucket / first.key).read_bytes() == PNG  # written and linked before any wait
    assert len(pending.pending) == 2 and pending.folders == {tmp_path / "finrpa-audit-2026-11" / "a"}
    await pending.wait()
    assert len(calls) == 3  # each file once, their shared folder once
    assert not pending.pending and not pending.folders
    await pending.wait()  # nothing left: no more fsyncs
    assert len(calls) == 3
    # outside the block, puts are synchronous again
    await store.put("a/three.png", PNG, "image/png", bucket="finrpa-audit-2026-11")
    assert len(calls) == 4 and second.sha256 != first.sha256


async def test_a_failed_background_fsync_fails_the_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, pending = _store(tmp_path), DeferredSync()

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    with deferred_sync(pending):
        await store.put("a/one.png", PNG, "image/png", bucket="finrpa-audit-2026-11")
    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="Input/output"):
        await pending.wait()


class _Screenshots:
    def __init__(self, store: LocalObjectStore) -> None:
        self.store = store

    async def store_screenshot(
        self, org_id: str, task_id: str | None, action_index: int | None, phase: Any, png: bytes, *,
        bucket: str | None = None,
    ) -> Any:
        return await self.store.put(f"{org_id}/{task_id}/{action_index}_{phase}.png", png, "image/png",
                                    bucket=bucket or "finrpa-audit-2026-11")


async def test_session_exports_storage_only_after_browser_actions(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_fsyncs(monkeypatch)
    recorder = EvidenceRecorder(org_id="org", run_id="run", screenshots=_Screenshots(_store(tmp_path / "objects")))
    config = RunBrowserConfig(run_id="run", downloads_dir=tmp_path / "downloads", portal_urls=[static_site.base_url],
                              extra_hosts=["localhost"])
    session = BrowserSession(browser_manager, config, recorder, screenshots=True)
    assert await session.checkpoint() == (None, None)
    run, controller = await session.ensure()
    exports = _count_exports(run, monkeypatch)
    await controller.navigate(static_site.url("login.html"))
    await session.settled()  # the navigation's after-shot and record finish in the background
    fsyncs_before_flush = len(calls)
    await recorder.flush()
    assert len(calls) > fsyncs_before_flush  # the navigation's after-shot and its folder
    first = await session.checkpoint()
    assert first[0] is not None and first[1] == static_site.url("login.html") and len(exports) == 1
    assert await session.checkpoint() == first and len(exports) == 1  # nothing acted: the last export stands
    await run.active_tab.page.evaluate("localStorage.setItem('k', 'v')")
    await _act(controller)
    second = await session.checkpoint()
    assert len(exports) == 2 and second[0] != first[0] and '"k"' in (second[0] or "")
    await session.close()


def _count_exports(run: RunBrowser, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    exports: list[int] = []
    real = run.export_storage_state

    async def counting() -> Any:
        exports.append(1)
        return await real()

    monkeypatch.setattr(run, "export_storage_state", counting)
    return exports


async def _act(controller: Controller) -> None:
    snapshot = await controller.observe()
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "alice")


class _Browser:
    """A started browser session whose storage state the test sets; counts flushes of its recorder."""

    def __init__(self) -> None:
        self.storage = '{"cookies": [], "origins": []}'
        self.flushes = 0
        self.exports = 0
        self.recorder = self

    async def flush(self) -> None:
        self.flushes += 1

    async def checkpoint(self) -> tuple[str | None, str | None]:
        self.exports += 1
        return self.storage, "https://portal.test/home"

    def current_url(self) -> str | None:
        return "https://portal.test/done"


async def test_journal_seals_the_storage_state_again_only_when_it_changed() -> None:
    from finrpa.kit.crypto import unseal
    from finrpa.runs.execution import RunIdentity
    from finrpa.runs.journal_sql import SqlJournal

    browser = _Browser()
    key = b"s" * 32
    journal = SqlJournal(RunIdentity("run-1", "org", None, None), None, browser, None,
                         fencing_token=1, session_key=key)
    first, url = await journal.sealed_checkpoint()
    assert first is not None and url == "https://portal.test/home" and browser.flushes == 1
    assert (await journal.sealed_checkpoint())[0] == first and browser.flushes == 2  # same cookies: same blob
    browser.storage = '{"cookies": [{"name": "sid"}], "origins": []}'
    changed, _ = await journal.sealed_checkpoint()
    assert changed != first and unseal(key, changed or "", b"run-1").decode() == browser.storage
    assert journal.last_session() == (browser.storage, "https://portal.test/home")
    exports = browser.exports
    # the commit that ends the run: screenshots made durable, the session neither exported nor kept
    assert await journal.sealed_checkpoint(final=True) == (None, "https://portal.test/done")
    assert browser.exports == exports and browser.flushes == 4
    assert journal.last_session() == (None, "https://portal.test/done")


def _session(manager: BrowserManager, site: StaticSite, tmp_path: Path, **kwargs: Any) -> BrowserSession:
    recorder = EvidenceRecorder(org_id="org", run_id="run", screenshots=None)
    config = RunBrowserConfig(
        run_id="run", downloads_dir=tmp_path / "downloads", portal_urls=[site.base_url], extra_hosts=["localhost"]
    )
    return BrowserSession(manager, config, recorder, screenshots=False, **kwargs)


async def test_a_warmed_up_session_hands_its_context_and_first_tab_to_the_first_step(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    open_before = len(browser_manager._runs)
    session = _session(browser_manager, static_site, tmp_path)
    session.warm_up()
    session.warm_up()  # once only
    run, controller = await session.ensure()
    assert len(browser_manager._runs) == open_before + 1  # one context, not one per call
    assert list(run.tabs) == [run.active_tab_id]  # its first tab is open already, and is the one a step acts in
    await controller.navigate(static_site.url("login.html"))
    assert list(run.tabs) == [run.active_tab_id] and run.active_tab.page.url == static_site.url("login.html")
    assert (await session.ensure())[0] is run
    await session.close()
    assert len(browser_manager._runs) == open_before and run.closed


async def test_a_warming_up_session_says_when_its_first_tab_was_asked_for(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    cold = _session(browser_manager, static_site, tmp_path)
    await asyncio.wait_for(cold.tab_requested(), 0.1)  # not warming up: at once
    session = _session(browser_manager, static_site, tmp_path)
    session.warm_up()
    await session.tab_requested()
    opening = session._opening
    assert opening is not None and not opening.done()  # the tab is on its way, not open yet: the caller goes on
    run, _controller = await session.ensure()
    assert list(run.tabs) == [run.active_tab_id]
    await session.close()


async def test_a_warmed_up_session_no_step_used_is_closed_with_the_run(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    open_before = len(browser_manager._runs)
    session = _session(browser_manager, static_site, tmp_path)
    session.warm_up()
    await session.close()  # while (or after) it opens: it is waited for and closed, never left behind
    assert len(browser_manager._runs) == open_before
    assert await session.checkpoint() == (None, None)
