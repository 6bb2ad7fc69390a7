"""measure_page_features on real pages in headless Chromium: nested and cross-origin frames, an open shadow
root, form fields in all of them, and fetch/WebSocket traffic."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Route

from finrpa.llm import ComplexityLevel, RouterThresholds, classify
from finrpa.llm.page_features import DynamicContentMonitor, measure_page_features
from tests.fixtures.browser import chromium_browser

__all__ = ["chromium_browser"]
pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PAGES = {
    "http://bank.test/plain": """<!doctype html><html><head><title>Login</title></head><body>
        <h1>登录</h1><form><label>用户名 <input name=u></label><label>密码 <input type=password name=p></label>
        <input type=hidden name=csrf value=x><button>登录</button></form></body></html>""",
    "http://bank.test/statement": """<!doctype html><html><head><title>交易明细查询</title></head><body>
        <h1>交易明细查询</h1>
        <form><select name=acct><option>6222</option></select><textarea name=memo></textarea></form>
        <date-range></date-range>
        <iframe src="http://bank.test/outer"></iframe>
        <script>
          customElements.define('date-range', class extends HTMLElement {
            connectedCallback() {
              const root = this.attachShadow({mode: 'open'});
              root.innerHTML = '<label>开始日期<input name=start></label><label>结束日期<input name=end></label>';
            }
          });
          fetch('/api/balance').then((r) => r.text()).then((t) => { document.body.dataset.loaded = t; });
        </script></body></html>""",
    "http://bank.test/outer": """<!doctype html><html><body><p>outer</p><input name=o1>
        <iframe src="http://widgets.test/inner"></iframe></body></html>""",
    "http://widgets.test/inner": """<!doctype html><html><body><p>inner</p>
        <input name=i1><input name=i2><input type=checkbox name=i3><div role=combobox></div></body></html>""",
}


async def _serve(route: Route) -> None:
    url = route.request.url
    if url.endswith("/api/balance"):
        await route.fulfill(status=200, content_type="text/plain", body="1000.00")
    elif url in PAGES:
        await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=PAGES[url])
    else:
        await route.abort()


@pytest_asyncio.fixture(loop_scope="module")
async def page(chromium_browser: Browser) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context()
    await context.route("**/*", _serve)
    page = await context.new_page()
    yield page
    await context.close()


async def test_a_plain_page_is_simple(page: Page) -> None:
    await page.goto("http://bank.test/plain")
    features = await measure_page_features(page)

    expected_elements = await page.evaluate("document.querySelectorAll('*').length")
    assert features.element_count == expected_elements
    assert features.form_field_count == 2  # the hidden input is not a field
    assert (features.iframe_depth, features.has_shadow_dom, features.dynamic_content) == (0, False, False)
    assert classify(features, RouterThresholds()) is ComplexityLevel.SIMPLE


async def test_frames_shadow_roots_and_ajax_are_measured(page: Page) -> None:
    monitor = DynamicContentMonitor().attach(page)
    await page.goto("http://bank.test/statement")
    await page.wait_for_function("document.body.dataset.loaded === '1000.00'")
    inner = page.frame(url="http://widgets.test/inner")
    assert inner is not None
    await inner.wait_for_selector("div[role=combobox]", state="attached")
    features = await measure_page_features(page, monitor)

    assert features.iframe_depth == 2
    assert features.has_shadow_dom
    # main: select + textarea + 2 inside the shadow root; outer frame: 1; cross-origin inner frame: 4
    assert features.form_field_count == 4 + 1 + 4
    assert features.dynamic_content and monitor.ajax_requests == 1
    light_dom = [await frame.evaluate("document.querySelectorAll('*').length") for frame in page.frames]
    assert features.element_count == sum(light_dom) + 4  # plus two labels and two inputs in the shadow root
    assert classify(features, RouterThresholds()) is ComplexityLevel.COMPLEX


async def test_a_websocket_counts_as_dynamic_content(page: Page) -> None:
    monitor = DynamicContentMonitor().attach(page)
    await page.goto("http://bank.test/plain")
    await page.evaluate("() => { try { new WebSocket('ws://127.0.0.1:9/quotes'); } catch (e) {} }")
    await page.wait_for_timeout(200)
    features = await measure_page_features(page, monitor)
    assert monitor.websockets == 1 and features.dynamic_content
