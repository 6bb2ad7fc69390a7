"""The injected page-model script and the one way Python calls into it."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

_CALL = (
    "([method, args]) => { const pm = window.__finrpa_pm;"
    " return pm ? pm[method](...args) : '__finrpa_missing__'; }"
)
_MISSING = "__finrpa_missing__"


@cache
def page_model_js() -> str:
    """The source of the page-model script (installed as an init script in every frame)."""
    return files("finrpa.browser").joinpath("js/page_model.js").read_text(encoding="utf-8")


async def invoke(frame: Frame, method: str, *args: Any) -> Any:
    """Call ``window.__finrpa_pm[method](*args)`` in ``frame``, injecting the script if the frame lacks it.

    Documents created before the init script was installed (or some about:blank frames) lack it; the
    epoch counter of such a frame starts at injection time.
    """
    result = await frame.evaluate(_CALL, [method, list(args)])
    if result == _MISSING:
        await frame.evaluate(page_model_js())
        result = await frame.evaluate(_CALL, [method, list(args)])
    return result


def is_context_gone(exc: PlaywrightError) -> bool:
    """True when an evaluation failed because the frame navigated or was detached."""
    text = str(exc)
    return any(
        marker in text
        for marker in (
            "Execution context was destroyed",
            "Frame was detached",
            "Target page, context or browser has been closed",
            "Cannot find context",
            "navigat",
        )
    )
