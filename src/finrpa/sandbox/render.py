"""Server-side rendering: Jinja2 templates with per-render ids, class names, labels and field order.

With dynamic ids on, every render gets fresh element ids and hashed class names (the stylesheet is inlined
and rendered with the same names), so only labels, roles and text stay stable between two page loads.
"""

from __future__ import annotations

import hashlib
import secrets
from decimal import Decimal
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.responses import HTMLResponse

from finrpa.sandbox.fields import field_name, form_order
from finrpa.sandbox.messages import message
from finrpa.sandbox.wording import Lang, text


def format_money(amount: Decimal | None) -> str:
    """1234567.5 → "1,234,567.50"; None → "" (an empty debit or credit cell)."""
    return "" if amount is None else f"{amount:,.2f}"


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("finrpa.sandbox", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["money"] = format_money
    return env


_PICKER_LABELS = {
    "prev": "prev_month",
    "next": "next_month",
    "year": "year",
    "month": "month",
    "today": "today",
    "clear": "clear",
}


class PageContext:
    """What a template needs to know about the current render: language, layout, ids and class names."""

    def __init__(self, lang: Lang, layout: str, dynamic_ids: bool) -> None:
        self.lang: Lang = lang
        self.layout = layout
        self.dynamic_ids = dynamic_ids
        self._nonce = secrets.token_hex(4)
        self._ids: dict[str, str] = {}

    def t(self, key: str, **values: object) -> str:
        """The label `key` for this language and layout."""
        label = text(key, self.lang, self.layout)
        return label.format(**values) if values else label

    def msg(self, key: str, **values: object) -> str:
        return message(key, self.lang, **values)

    def name(self, key: str) -> str:
        return field_name(key, self.layout)

    def id(self, key: str) -> str:
        """The element id for `key`: the field name (v1/v2) or a fresh random id per render."""
        if key not in self._ids:
            if self.dynamic_ids:
                self._ids[key] = f"ext-gen{secrets.randbelow(900_000) + 100_000}"
            else:
                self._ids[key] = self._stable_id(key)
        return self._ids[key]

    def _stable_id(self, key: str) -> str:
        try:
            return field_name(key, self.layout)
        except KeyError:
            slug = key.replace(".", "-").replace("_", "-")
            return f"pg-{slug}" if self.layout == "v2" else slug

    def cls(self, name: str) -> str:
        """A CSS class name: readable, renamed in v2, or hashed per render with dynamic ids."""
        if self.dynamic_ids:
            return "c" + hashlib.sha1(f"{self._nonce}:{name}".encode(), usedforsecurity=False).hexdigest()[:7]
        return f"ui-{name}" if self.layout == "v2" else name

    def order(self, form: str) -> tuple[str, ...]:
        return form_order(form, self.layout)

    def picker_options(self, readonly: bool) -> dict[str, object]:
        """What the date-picker script needs: labels in this language and this render's class names."""
        labels = {name: self.t(f"datepicker.{key}") for name, key in _PICKER_LABELS.items()}
        classes = {
            name: self.cls(f"dp-{name}") for name in ("popup", "head", "nav", "grid", "day", "other", "foot")
        }
        classes |= {"selected": self.cls("dp-selected"), "btn": self.cls("btn")}
        return {"readonly": readonly, "lang": self.lang, "labels": labels, "cls": classes}

    def widget_classes(self, *names: str) -> dict[str, str]:
        return {name: self.cls(name) for name in names}


def render(template: str, page: PageContext, status_code: int = 200, **values: Any) -> HTMLResponse:
    """Render `template` with the page context as `p` and `values`."""
    if "/" in template:  # bank/…, insurance/…, securities/… pages belong to that portal
        values.setdefault("portal", template.split("/", 1)[0])
    html = environment().get_template(template).render(p=page, **values)
    return HTMLResponse(html, status_code=status_code)
