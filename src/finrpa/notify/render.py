"""Bilingual (zh-CN first, then English) rendering of events as markdown for chat robots and plain text for
e-mail, with a link back to the dashboard.

Values inside an event can come from a portal page (a reason, an error, an action label), so they are
neutralised: one line, a bounded length, no clickable URLs, and in markdown no link, image, HTML or code
syntax. A page cannot plant a phishing link in a group chat or a mailbox through a notification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from finrpa.notify.events import Fact, NotificationEvent

MAX_VALUE_CHARS = 300
_BRAND = "FinRPA"
_LINK_ZH = "在控制台中查看"
_LINK_EN = "Open in the dashboard"

# Characters that build links, images, HTML or code in WeCom/DingTalk markdown → full-width look-alikes.
_MARKDOWN_NEUTRAL = str.maketrans(
    {"[": "［", "]": "］", "(": "（", ")": "）", "<": "＜", ">": "＞", "`": "ˋ"}
)
_URL_SCHEME = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*)://")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class RenderedMessage:
    """One event, ready for any channel."""

    title: str
    markdown: str
    text: str
    link: str


@dataclass(frozen=True)
class RenderOptions:
    dashboard_url: str
    timezone: str = "Asia/Shanghai"


def render(event: NotificationEvent, options: RenderOptions) -> RenderedMessage:
    """Render ``event`` as a title, a markdown body and a plain-text body, Chinese first."""
    headline = event.headline()
    link = options.dashboard_url.rstrip("/") + event.dashboard_path()
    zone = ZoneInfo(options.timezone)
    facts = [_Line(fact, *_format_value(fact, zone)) for fact in event.facts()]
    title = _single_line(f"【{_BRAND}】{headline.zh} | {headline.en}")
    return RenderedMessage(
        title=title,
        markdown=_markdown(headline.zh, headline.en, facts, link),
        text=_text(headline.zh, headline.en, facts, link),
        link=link,
    )


def neutralize_markdown(value: str) -> str:
    """Make an untrusted value inert in markdown: one line, no links/HTML/code, URLs not clickable."""
    return neutralize_text(value).translate(_MARKDOWN_NEUTRAL)


def neutralize_text(value: str) -> str:
    """Make an untrusted value safe in plain text: one line, bounded, URLs not auto-linked by mail clients."""
    return _URL_SCHEME.sub(lambda match: f"{match.group(1)}∶//", _single_line(value))


@dataclass(frozen=True)
class _Line:
    fact: Fact
    value: str
    trusted: bool  # formatted by FinRPA itself (a time), not taken from the event's text

    def markdown_value(self) -> str:
        return self.value if self.trusted else neutralize_markdown(self.value)

    def text_value(self) -> str:
        return self.value if self.trusted else neutralize_text(self.value)


def _markdown(zh: str, en: str, facts: list[_Line], link: str) -> str:
    lines = [f"### 【{_BRAND}】{zh}", f"**{en}**", ""]
    lines += [f"- **{line.fact.label_zh} {line.fact.label_en}**：{line.markdown_value()}" for line in facts]
    lines += ["", f"[{_LINK_ZH} / {_LINK_EN}]({link})"]
    return "\n".join(lines)


def _text(zh: str, en: str, facts: list[_Line], link: str) -> str:
    lines = [f"【{_BRAND}】{zh}", en, ""]
    lines += [f"{line.fact.label_zh} / {line.fact.label_en}: {line.text_value()}" for line in facts]
    lines += ["", f"{_LINK_ZH} / {_LINK_EN}:", link, ""]
    return "\n".join(lines)


def _format_value(fact: Fact, zone: ZoneInfo) -> tuple[str, bool]:
    if isinstance(fact.value, datetime):
        return f"{fact.value.astimezone(zone):%Y-%m-%d %H:%M:%S} ({zone.key})", True
    return str(fact.value), False


def _single_line(value: str) -> str:
    flat = _WHITESPACE.sub(" ", value).strip()
    if len(flat) > MAX_VALUE_CHARS:
        return flat[: MAX_VALUE_CHARS - 1] + "…"
    return flat
