"""The left-hand menu of each portal (labels depend on language and layout)."""

from __future__ import annotations

from dataclasses import dataclass

from finrpa.sandbox.directory import Portal
from finrpa.sandbox.render import PageContext

_MENUS: dict[Portal, tuple[tuple[str, str], ...]] = {
    "bank": (
        ("bank.menu.overview", "/bank/"),
        ("bank.menu.statement", "/bank/statement"),
        ("bank.menu.payment", "/bank/payment"),
        ("bank.menu.records", "/bank/records"),
    ),
    "insurance": (
        ("ins.menu.apply", "/insurance/apply"),
        ("ins.menu.claim", "/insurance/claim"),
        ("ins.menu.search", "/insurance/policies"),
    ),
    "securities": (
        ("sec.menu.report", "/securities/report"),
        ("sec.menu.trades", "/securities/trades"),
        ("sec.menu.order", "/securities/order"),
    ),
}


@dataclass(frozen=True)
class MenuItem:
    label: str
    href: str
    active: bool


def menu(portal: Portal, page: PageContext, active: str) -> list[MenuItem]:
    """The portal's menu with the entry whose label key is `active` marked current."""
    return [MenuItem(page.t(key), href, key == active) for key, href in _MENUS[portal]]
