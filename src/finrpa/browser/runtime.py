"""Browser processes and per-run contexts.

One :class:`BrowserManager` (one Chromium process) per worker; one :class:`RunBrowser` (one
BrowserContext with its own downloads folder, egress allowlist, locale and time zone) per run. A
RunBrowser is closed when its run ends and is never reused for another run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Literal
from urllib.parse import urlsplit

from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Dialog,
    Download,
    Page,
    Playwright,
    Request,
    Route,
    WebSocketRoute,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, ConfigDict, Field

from finrpa.browser.downloads import DownloadedFile, save_download
from finrpa.browser.egress import EgressAllowlist
from finrpa.browser.egress_proxy import RefusedRequest, RefusingProxy
from finrpa.browser.errors import BrowserUnavailableError, DownloadRejectedError, InvalidActionError
from finrpa.browser.events import (
    BrowserEvent,
    DialogClosed,
    DialogOpened,
    EgressBlocked,
    EventSink,
    PageCrashed,
    TabClosed,
    TabOpened,
)
from finrpa.browser.locate import CHROMIUM_ARGS, MISSING_CHROMIUM_HELP, locate_chromium
from finrpa.browser.script import page_model_js
from finrpa.browser.session_state import SessionState
from finrpa.config import Settings
from finrpa.kit.tasks import retrieved

# How a run context enforces its egress allowlist. "proxy": the allowlist is the context's proxy bypass list and the
# run's RefusingProxy refuses the rest (no allowed request is paused). "route": a Playwright route over every request
# aborts the refused ones and lets the rest go the way the browser sends them; used when the worker reaches the
# network through an outbound proxy named in its environment, which a context proxy would bypass.
EgressMode = Literal["proxy", "route"]
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


def environment_proxy() -> bool:
    """True when the environment names an outbound proxy (Chromium on a server follows these variables)."""
    return any(os.environ.get(name) for name in _PROXY_VARIABLES)


class RunBrowserConfig(BaseModel):
    """How a run's browser context is set up."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    run_id: str
    downloads_dir: Path
    portal_urls: list[str] = Field(default_factory=list)
    extra_hosts: list[str] = Field(default_factory=list, description="host, host:port or *.domain")
    storage_state: SessionState | Path | None = Field(
        default=None, description="A session saved by export_storage_state (or a Playwright JSON file)."
    )
    locale: str = "zh-CN"
    timezone_id: str = "Asia/Shanghai"
    viewport: tuple[int, int] = (1366, 900)
    max_download_bytes: int = 50 * 1024 * 1024
    dialog_timeout_s: float = Field(
        default=60.0, description="A native dialog nobody handles is dismissed after this long."
    )


class BrowserManager:
    """One Chromium process; hands out one isolated context per run."""

    def __init__(
        self,
        *,
        chromium_path: str | None = None,
        headless: bool = True,
        extra_args: tuple[str, ...] = (),
        launch_timeout_s: float = 30.0,
        egress: EgressMode | None = None,
    ) -> None:
        self._chromium_path = chromium_path
        self._headless = headless
        self._extra_args = extra_args
        self._launch_timeout_s = launch_timeout_s
        # How run contexts enforce their allowlist (see EgressMode); decided when Chromium starts, from the same
        # environment it reads its own outbound proxy from.
        self.egress: EgressMode | None = egress
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._runs: set[RunBrowser] = set()

    @classmethod
    def from_settings(cls, settings: Settings) -> BrowserManager:
        """A manager configured by FINRPA_CHROMIUM_PATH and FINRPA_HEADLESS."""
        return cls(chromium_path=settings.chromium_path, headless=settings.headless)

    async def start(self) -> None:
        """Launch Chromium (found by :func:`locate_chromium`); raises BrowserUnavailableError if it cannot."""
        if self._browser is not None:
            return
        location = locate_chromium(self._chromium_path)
        if location is None:
            raise BrowserUnavailableError(MISSING_CHROMIUM_HELP)
        if self.egress is None:
            self.egress = "route" if environment_proxy() else "proxy"
        self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=location.path,
                headless=self._headless,
                args=[*CHROMIUM_ARGS, *self._extra_args],
                timeout=self._launch_timeout_s * 1000,
            )
        except PlaywrightError as exc:
            await self._playwright.stop()
            self._playwright = None
            raise BrowserUnavailableError(
                f"Chromium at {location.path} did not start ({exc.message.splitlines()[0]}). "
                "Check that it runs, or set FINRPA_CHROMIUM_PATH to another Chromium."
            ) from exc

    @property
    def browser(self) -> Browser:
        if self._browser is None:
            raise BrowserUnavailableError("The browser is not started; call BrowserManager.start() first.")
        return self._browser

    async def new_run(self, config: RunBrowserConfig, *, event_sink: EventSink | None = None) -> RunBrowser:
        """A fresh context for one run (never shared, never reused)."""
        run = await RunBrowser.open(
            self.browser, config, event_sink, on_close=self._runs.discard, egress=self.egress or "proxy"
        )
        self._runs.add(run)
        return run

    async def close(self) -> None:
        """Close every open run context, then the browser."""
        for run in list(self._runs):
            await run.close()
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):
                await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    async def __aenter__(self) -> BrowserManager:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class Tab:
    """One page of a run, with what the controller needs to know about it."""

    def __init__(self, tab_id: str, page: Page, opener_id: str | None) -> None:
        self.tab_id = tab_id
        self.page = page
        self.opener_id = opener_id
        self.pending_dialog: Dialog | None = None
        self.dialog_policy: str | None = None  # one-shot "accept" / "dismiss" set by an action
        self.dialog_prompt_text: str | None = None
        self.last_dialog: tuple[str, str, bool] | None = None  # type, message, accepted
        self.activity = asyncio.Event()  # set on dialog, download, popup or main-frame navigation
        self.downloads: list[asyncio.Future[DownloadedFile]] = []
        self.main_navigations = 0
        self.dialog_count = 0
        self._cdp: asyncio.Future[CDPSession] | None = None  # opened on first use
        self.clearing: asyncio.Future[object] | None = None  # the last capture's masks coming down
        self.parsed = False  # the main document fired DOMContentLoaded since the tab's last main-frame navigation

    def open_cdp(self) -> None:
        """Start opening the page's protocol session (screenshots, typing) unless it is open or opening, so that
        its first user does not wait for it; one that failed (the tab closed meanwhile) is opened again."""
        if self._cdp is None or (self._cdp.done() and (self._cdp.cancelled() or self._cdp.exception() is not None)):
            self._cdp = asyncio.ensure_future(self.page.context.new_cdp_session(self.page))
            self._cdp.add_done_callback(retrieved)

    async def cdp(self) -> CDPSession:
        """The page's protocol session; callers at the same time share one, and a caller cancelled meanwhile does
        not cancel it for the others."""
        self.open_cdp()
        assert self._cdp is not None
        return await asyncio.shield(self._cdp)

    async def wait_parsed(self, timeout_s: float) -> None:
        """Return once the main document is parsed (its DOM can be observed): at once when the tab saw its
        DOMContentLoaded since the last main-frame navigation, else after asking the browser (which also covers a
        page whose event came before the tab was watched). A page that does not get there in time is left as is."""
        if self.parsed:
            return
        navigations = self.main_navigations
        with contextlib.suppress(PlaywrightError):
            await self.page.wait_for_load_state("domcontentloaded", timeout=timeout_s * 1000)
            self.parsed = navigations == self.main_navigations  # not if it navigated again meanwhile


class RunBrowser:
    """A run's isolated browser context: tabs, egress allowlist, downloads folder, events."""

    def __init__(
        self,
        context: BrowserContext,
        config: RunBrowserConfig,
        allowlist: EgressAllowlist,
        event_sink: EventSink | None,
        on_close: Callable[[RunBrowser], None],
    ) -> None:
        self.context = context
        self.config = config
        self.allowlist = allowlist
        self.events: list[BrowserEvent] = []
        self.tabs: dict[str, Tab] = {}
        self.active_tab_id = ""
        self._sink = event_sink
        self._on_close = on_close
        self._tab_ids = itertools.count(1)
        self._closed = False
        self._tasks: set[asyncio.Task[object]] = set()
        self._owns_context = True
        self._proxy: RefusingProxy | None = None  # the context's egress proxy, when this run opened the context

    @classmethod
    async def open(
        cls,
        browser: Browser,
        config: RunBrowserConfig,
        event_sink: EventSink | None,
        on_close: Callable[[RunBrowser], None],
        *,
        egress: EgressMode = "proxy",
    ) -> RunBrowser:
        storage = config.storage_state
        if isinstance(storage, Path) and not storage.is_file():
            raise InvalidActionError(f"The saved session {storage} does not exist; start without it.")
        restored = storage.to_playwright() if isinstance(storage, SessionState) else storage
        width, height = config.viewport
        allowlist = EgressAllowlist.build(config.portal_urls, config.extra_hosts)
        # Egress is enforced by the context's network stack: allowed hosts bypass the proxy, everything else
        # reaches the run's refusing proxy, which reports it (see finrpa.browser.egress_proxy).
        refusals: list[RefusedRequest] = []
        proxy = RefusingProxy(refusals.append) if egress == "proxy" else None
        server = await proxy.start() if proxy is not None else None
        try:
            context = await browser.new_context(
                locale=config.locale,
                timezone_id=config.timezone_id,
                viewport={"width": width, "height": height},
                accept_downloads=True,
                storage_state=restored,
                service_workers="block",
                proxy={"server": server, "bypass": allowlist.proxy_bypass()} if server is not None else None,
            )
        except BaseException:
            if proxy is not None:
                await proxy.close()
            raise
        run = cls(context, config, allowlist, event_sink, on_close)
        run._proxy = proxy
        if proxy is not None:
            proxy.report_to(run._refused)
        for request in refusals:
            run._refused(request)
        config.downloads_dir.mkdir(parents=True, exist_ok=True)
        await context.add_init_script(page_model_js())
        if proxy is None:  # every request passes the route, which lets the allowed ones go on to the outbound proxy
            await context.route("**/*", run._route_request)
            await context.route_web_socket(lambda _url: True, run._route_web_socket)
        context.on("page", run._adopt_page)
        return run

    @classmethod
    async def adopt(cls, page: Page, config: RunBrowserConfig) -> RunBrowser:
        """Wrap a caller's own Playwright page (skills used as a library). The caller keeps its context:
        ``close()`` leaves it open. Navigation is limited to the page's current host plus ``portal_urls`` and
        ``extra_hosts``; requests of the caller's context are not intercepted."""
        current = [page.url] if page.url.startswith(("http://", "https://")) else []
        allowlist = EgressAllowlist.build([*current, *config.portal_urls], config.extra_hosts)
        run = cls(page.context, config, allowlist, None, on_close=lambda _run: None)
        run._owns_context = False
        config.downloads_dir.mkdir(parents=True, exist_ok=True)
        await page.context.add_init_script(page_model_js())
        for frame in page.frames:
            with contextlib.suppress(PlaywrightError):
                await frame.evaluate(page_model_js())
        run.active_tab_id = run._tab_for(page).tab_id
        page.context.on("page", run._adopt_page)
        return run

    # -- events ---------------------------------------------------------------------------------------
    def emit(self, event: BrowserEvent) -> None:
        self.events.append(event)
        if len(self.events) > 1000:
            del self.events[:500]
        if self._sink is not None:
            self._sink(event)

    async def _route_request(self, route: Route, request: Request) -> None:
        if self.allowlist.allows_url(request.url):
            await route.fallback()
            return
        self._refused(
            RefusedRequest(
                url=_short(request.url),
                host=(urlsplit(request.url).hostname or "").lower(),
                resource_type=request.resource_type,
                navigation=request.is_navigation_request(),
            )
        )
        with contextlib.suppress(PlaywrightError):
            await route.abort("blockedbyclient")

    async def _route_web_socket(self, socket: WebSocketRoute) -> None:
        """Routes do not see WebSockets: an allowed one is connected through, a refused one closed unopened."""
        if self.allowlist.allows_url(socket.url):
            socket.connect_to_server()
            return
        parts = urlsplit(socket.url)
        self._refused(RefusedRequest(_short(socket.url), (parts.hostname or "").lower(), "websocket", False))
        with contextlib.suppress(PlaywrightError):
            await socket.close(code=1008, reason="outside the run's allowed hosts")

    def _refused(self, request: RefusedRequest) -> None:
        self.emit(EgressBlocked(run_id=self.config.run_id, **dataclasses.asdict(request)))

    # -- tabs -----------------------------------------------------------------------------------------
    async def new_tab(self, url: str | None = None) -> Tab:
        """Open a tab (optionally at ``url``, which must be inside the allowlist) and make it active."""
        if url is not None and not self.allowlist.allows_url(url):
            raise InvalidActionError(f"{_short(url)} is outside this run's allowed hosts.")
        page = await self.context.new_page()
        tab = self._tab_for(page)
        self.active_tab_id = tab.tab_id
        if url is not None:
            await page.goto(url)
        return tab

    @property
    def active_tab(self) -> Tab:
        tab = self.tabs.get(self.active_tab_id)
        if tab is None:
            raise InvalidActionError("This run has no open tab; navigate first.")
        return tab

    def tab(self, tab_id: str | None) -> Tab:
        if tab_id is None:
            return self.active_tab
        tab = self.tabs.get(tab_id)
        if tab is None or tab.page.is_closed():
            known = ", ".join(t for t, v in self.tabs.items() if not v.page.is_closed()) or "none"
            raise InvalidActionError(f"There is no open tab {tab_id!r} (open tabs: {known}).")
        return tab

    def _adopt_page(self, page: Page) -> None:
        if any(t.page is page for t in self.tabs.values()):
            return
        opener_id = self.active_tab_id or None
        tab = self._tab_for(page, opener_id)
        self.emit(
            TabOpened(run_id=self.config.run_id, tab_id=tab.tab_id, url=_short(page.url), opener_tab_id=opener_id)
        )
        opener = self.tabs.get(opener_id or "")
        if opener is not None:
            opener.activity.set()

    def _tab_for(self, page: Page, opener_id: str | None = None) -> Tab:
        for existing in self.tabs.values():
            if existing.page is page:
                return existing
        tab = Tab(f"t{next(self._tab_ids)}", page, opener_id)
        self.tabs[tab.tab_id] = tab
        page.on("dialog", lambda dialog: self._spawn(self._on_dialog(tab, dialog)))
        page.on("download", lambda download: self._on_download(tab, download))
        page.on("framenavigated", lambda frame: self._on_navigated(tab, frame))
        page.on("domcontentloaded", lambda _page: setattr(tab, "parsed", True))
        page.on("close", lambda _page: self._on_tab_closed(tab))
        page.on("crash", lambda _page: self.emit(PageCrashed(run_id=self.config.run_id, tab_id=tab.tab_id)))
        tab.open_cdp()
        return tab

    def _on_navigated(self, tab: Tab, frame: object) -> None:
        if frame is tab.page.main_frame:
            tab.main_navigations += 1
            tab.parsed = False
            tab.activity.set()

    def _on_tab_closed(self, tab: Tab) -> None:
        self.emit(TabClosed(run_id=self.config.run_id, tab_id=tab.tab_id))
        if self.active_tab_id == tab.tab_id:
            alive = [t for t in self.tabs.values() if not t.page.is_closed()]
            self.active_tab_id = alive[-1].tab_id if alive else ""

    # -- dialogs --------------------------------------------------------------------------------------
    async def _on_dialog(self, tab: Tab, dialog: Dialog) -> None:
        tab.dialog_count += 1
        self.emit(
            DialogOpened(
                run_id=self.config.run_id, tab_id=tab.tab_id, dialog_type=dialog.type, message=dialog.message[:500]
            )
        )
        policy, tab.dialog_policy = tab.dialog_policy, None
        if policy is not None:
            await self.close_dialog(tab, dialog, accept=policy == "accept", automatic=True)
            return
        tab.pending_dialog = dialog
        tab.activity.set()
        await asyncio.sleep(self.config.dialog_timeout_s)
        if tab.pending_dialog is dialog:
            await self.close_dialog(tab, dialog, accept=False, automatic=True)

    async def close_dialog(
        self, tab: Tab, dialog: Dialog, *, accept: bool, automatic: bool, prompt_text: str | None = None
    ) -> None:
        """Accept or dismiss a native dialog and report it."""
        if tab.pending_dialog is dialog:
            tab.pending_dialog = None
        tab.last_dialog = (dialog.type, dialog.message[:500], accept)
        with contextlib.suppress(PlaywrightError):
            if accept:
                await dialog.accept(prompt_text or tab.dialog_prompt_text or "")
            else:
                await dialog.dismiss()
        tab.dialog_prompt_text = None
        tab.activity.set()
        self.emit(DialogClosed(run_id=self.config.run_id, tab_id=tab.tab_id, accepted=accept, automatic=automatic))

    # -- downloads ------------------------------------------------------------------------------------
    def _on_download(self, tab: Tab, download: Download) -> None:
        future: asyncio.Future[DownloadedFile] = asyncio.get_running_loop().create_future()
        # A rejected download nobody waits for is reported by event; mark its error as seen.
        future.add_done_callback(lambda f: None if f.cancelled() else f.exception())
        tab.downloads.append(future)
        tab.activity.set()
        self._spawn(self._save(tab, download, future))

    async def _save(self, tab: Tab, download: Download, future: asyncio.Future[DownloadedFile]) -> None:
        from finrpa.browser.events import DownloadSaved

        try:
            saved = await save_download(download, self.config.downloads_dir, self.config.max_download_bytes)
        except DownloadRejectedError as exc:
            future.set_exception(exc)
            return
        future.set_result(saved)
        self.emit(
            DownloadSaved(
                run_id=self.config.run_id,
                tab_id=tab.tab_id,
                filename=saved.filename,
                size=saved.size,
                sha256=saved.sha256,
                media_type=saved.media_type,
            )
        )

    def _spawn(self, coro: Awaitable[object]) -> None:
        task: asyncio.Task[object] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- session --------------------------------------------------------------------------------------
    async def export_storage_state(self) -> SessionState:
        """Cookies and localStorage of the run, to restore the session later (treat it as a secret)."""
        return SessionState.from_playwright(await self.context.storage_state())

    async def close(self) -> None:
        """Close the context (tabs, storage, temporary download files). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        for tab in self.tabs.values():
            if tab.clearing is not None and not tab.clearing.done():
                tab.clearing.cancel()
        if self._owns_context:
            with contextlib.suppress(PlaywrightError):
                await self.context.close()
        if self._proxy is not None:
            await self._proxy.close()
        self._on_close(self)

    @property
    def closed(self) -> bool:
        return self._closed


def _short(url: str, limit: int = 300) -> str:
    """A URL for events and messages: without query string (it may carry tokens) and bounded."""
    head = url.split("?", 1)[0].split("#", 1)[0]
    return head if len(head) <= limit else head[: limit - 1] + "…"
