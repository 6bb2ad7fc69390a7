"""What a page is telling its user right now: visible alerts, field error messages and status lines.

Snapshots list what can be acted on, not these texts, so a caller that needs them (a submit that did not
lead where it should) reads them here, on demand. Each frame is read with one small script; card, account
and ID numbers in the texts are reduced to their last four digits, as in snapshots.

Kinds: ``alert`` — role=alert/alertdialog, aria-live=assertive, the message a field marked aria-invalid
points to (aria-errormessage / aria-describedby), and elements whose class names say error (``error``,
``err``, ``invalid`` as a class-name word: ``form-error``, ``el-form-item__error``, ``invalid-feedback``);
``status`` — role=status/log and aria-live=polite regions, which also carry harmless live text (an amount
in words), so they never decide anything on their own.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame

from finrpa.browser.errors import ActionTimeoutError, BrowserError
from finrpa.browser.frames import frame_tree
from finrpa.browser.runtime import Tab
from finrpa.browser.script import is_context_gone

_MAX_MESSAGES = 8
_MAX_CHARS = 200
# Card, account and ID numbers as the page model finds them in text.
_NUMBER_IN_TEXT = re.compile(
    r"(?<![\d.,])(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{17}[\dXx])(?![\d.,])"
)

# One pass over the frame's DOM. Innermost matches win (an alert box holding a list of field errors yields
# the errors); hidden elements are skipped, and so are error-classed controls, page-level elements and
# wrappers holding controls (a red "delete" button, <body class="has-errors"> and a field's wrapper are not
# messages).
_READ = r"""
([maxMessages, maxChars]) => {
  const ERROR_CLASS = /(?:^|[-_])(?:error|errors|err|invalid)(?:[-_]|$)/i;
  const NOT_A_MESSAGE = /^(HTML|BODY|MAIN|FORM|BUTTON|A|INPUT|SELECT|TEXTAREA|OPTION|LABEL)$/;
  const CONTROLS = "input,select,textarea,button";
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const visible = (el) => {
    if (el.checkVisibility && !el.checkVisibility({ checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const kinds = new Map();
  const mark = (el, kind) => { if (el && kinds.get(el) !== "alert") kinds.set(el, kind); };
  document.querySelectorAll("[role=status],[role=log],[aria-live=polite]").forEach((el) => mark(el, "status"));
  document.querySelectorAll("[role=alert],[role=alertdialog],[aria-live=assertive]").forEach((el) => mark(el, "alert"));
  document.querySelectorAll("[aria-invalid=true]").forEach((field) => {
    const ids = (field.getAttribute("aria-errormessage") || field.getAttribute("aria-describedby") || "").split(/\s+/);
    ids.filter(Boolean).forEach((id) => mark(document.getElementById(id), "alert"));
  });
  document.querySelectorAll("[class]").forEach((el) => {
    if (NOT_A_MESSAGE.test(el.tagName) || !ERROR_CLASS.test(el.getAttribute("class") || "")) return;
    if (![...el.classList].some((name) => ERROR_CLASS.test(name))) return;
    // A field's wrapper marked "has-error" holds the field itself: the message is inside it, not it.
    if (el.querySelector(CONTROLS) || squash(el.textContent).length > 4 * maxChars) return;
    mark(el, "alert");
  });
  const shown = [...kinds.keys()].filter((el) => visible(el) && squash(el.innerText));
  const innermost = shown.filter((el) => !shown.some((other) => other !== el && el.contains(other)));
  innermost.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  const seen = new Set();
  const out = [];
  for (const el of innermost) {
    const text = squash(el.innerText).slice(0, 4 * maxChars);  // masked and clipped in Python
    if (seen.has(text)) continue;
    seen.add(text);
    out.push({ kind: kinds.get(el), text });
    if (out.length >= maxMessages) break;
  }
  return out;
}
"""


class MessageKind(StrEnum):
    ALERT = "alert"
    STATUS = "status"


@dataclass(frozen=True)
class PageMessage:
    kind: MessageKind
    text: str


async def read_page_messages(tab: Tab, *, timeout_s: float = 5.0) -> list[PageMessage]:
    """The visible messages of ``tab`` and its frames, in document order (main frame first). While a
    native dialog is open the page cannot run scripts: its text is then the one message (an alert).

    A frame that navigates, goes away or closes while being read has nothing to say and is skipped.
    Raises :class:`ActionTimeoutError` when the page does not answer in time, :class:`BrowserError` when
    a frame refuses the read for another reason.
    """
    dialog = tab.pending_dialog
    if dialog is not None:
        return [_message(MessageKind.ALERT, dialog.message)]
    messages: list[PageMessage] = []
    try:
        async with asyncio.timeout(timeout_s):
            for node in frame_tree(tab.page):
                messages.extend(await _read_frame(node.frame))
    except TimeoutError as exc:
        raise ActionTimeoutError(
            f"Reading the page's messages took over {timeout_s:.0f} s; the page may be frozen."
        ) from exc
    return _unique(messages)[:_MAX_MESSAGES]


async def _read_frame(frame: Frame) -> list[PageMessage]:
    try:
        raw: list[dict[str, Any]] = await frame.evaluate(_READ, [_MAX_MESSAGES, _MAX_CHARS])
    except PlaywrightError as exc:
        if is_context_gone(exc):
            return []
        raise BrowserError(f"The page's messages could not be read: {str(exc).splitlines()[0]}") from exc
    return [_message(MessageKind(item["kind"]), str(item["text"])) for item in raw]


def _unique(messages: list[PageMessage]) -> list[PageMessage]:
    seen: set[str] = set()
    unique: list[PageMessage] = []
    for message in messages:
        if message.text not in seen:
            seen.add(message.text)
            unique.append(message)
    return unique


def _message(kind: MessageKind, text: str) -> PageMessage:
    """One message: whitespace squashed, card/account/ID numbers cut to their last four digits, clipped."""
    text = _NUMBER_IN_TEXT.sub(lambda m: "****" + re.sub(r"\D", "", m.group(0))[-4:], " ".join(text.split()))
    return PageMessage(kind, text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…")
