"""The masks of a screenshot come down in the background; a tab closed meanwhile leaves nothing behind."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
from typing import Any

import pytest

from finrpa.browser import screenshots


async def test_clearing_cancelled_by_a_closing_tab_leaves_no_unretrieved_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    started = asyncio.Event()

    async def slow_clear(_node: object) -> None:
        started.set()
        await asyncio.sleep(10)

    monkeypatch.setattr(screenshots, "_clear", slow_clear)
    try:
        clearing = screenshots.clear_later([object(), object()])  # type: ignore[list-item]
        await started.wait()
        clearing.cancel()  # as RunBrowser.close does with a tab's pending clearing
        tab = SimpleNamespace(clearing=clearing)
        await screenshots.masks_removed(tab)  # type: ignore[arg-type]  # returns; the caller is not cancelled
        assert tab.clearing is None
        del clearing, tab
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert reported == []
