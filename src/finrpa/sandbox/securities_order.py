"""Order entry (委托下单): code, side, limit price within the daily band, lots of 100, confirm → 委托编号."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.directory import SECURITIES, Security, find_security
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.state import OrderRecord
from finrpa.sandbox.trades import day_price
from finrpa.sandbox.validation import parse_amount
from finrpa.sandbox.web import LoggedIn, form_value, page_of, require_login, runtime_of

router = APIRouter(prefix="/securities")
FIELDS = ("sec.order.code", "sec.order.side", "sec.order.price", "sec.order.quantity")
SIDES = ("buy", "sell")
BAND = Decimal("0.10")
CENT = Decimal("0.01")
MAX_QUANTITY = 1_000_000


@dataclass(frozen=True)
class Quote:
    security: Security
    last: Decimal
    limit_up: Decimal
    limit_down: Decimal


def quote(security: Security, today: date, seed: int) -> Quote:
    """Today's reference price and the ±10 % daily limit band (涨停/跌停) around it."""
    last = day_price(security, today, seed)
    return Quote(
        security,
        last,
        (last * (1 + BAND)).quantize(CENT, ROUND_HALF_UP),
        (last * (1 - BAND)).quantize(CENT, ROUND_HALF_UP),
    )


def validate_order(page: PageContext, values: dict[str, str], today: date, seed: int) -> dict[str, str]:
    errors = {key: page.msg("required", field=page.t(key)) for key in FIELDS if not values[key]}
    security = find_security(values["sec.order.code"])
    if values["sec.order.code"] and security is None:
        errors["sec.order.code"] = page.msg("unknown_security")
    if values["sec.order.side"] and values["sec.order.side"] not in SIDES:
        errors["sec.order.side"] = page.msg("bad_choice", field=page.t("sec.order.side"))
    price = parse_amount(values["sec.order.price"]) if values["sec.order.price"] else None
    if values["sec.order.price"] and price is None:
        errors["sec.order.price"] = page.msg("bad_price")
    elif price is not None and security is not None:
        band = quote(security, today, seed)
        if not band.limit_down <= price <= band.limit_up:
            errors["sec.order.price"] = page.msg("price_band", low=band.limit_down, high=band.limit_up)
    quantity = values["sec.order.quantity"]
    if quantity and (not quantity.isdigit() or int(quantity) % 100 or not 0 < int(quantity) <= MAX_QUANTITY):
        errors["sec.order.quantity"] = page.msg("bad_quantity")
    return errors


def _form_page(request: Request, who: LoggedIn, values: dict[str, str], errors: dict[str, str]) -> Response:
    page, runtime = page_of(request), runtime_of(request)
    today = runtime.now().date()
    return render(
        "securities/order.html",
        page,
        menu=menu("securities", page, "sec.menu.order"),
        user=who.user,
        values=values,
        errors=errors,
        sides=SIDES,
        quotes=[quote(s, today, runtime.config.seed) for s in SECURITIES],
    )


@router.get("/order")
async def order_form(request: Request) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    values = {key: request.query_params.get(page.name(key), "") for key in FIELDS}
    return _form_page(request, who, values | {"sec.order.side": values["sec.order.side"] or "buy"}, {})


def _read(form_values: dict[str, str]) -> dict[str, str]:
    return form_values | {"sec.order.code": form_values["sec.order.code"].strip()}


@router.post("/order")
async def order_review(request: Request) -> Response:
    """Validate and show the confirmation step (nothing is placed yet)."""
    who = require_login(request, "securities")
    runtime, page = runtime_of(request), page_of(request)
    form = await request.form()
    values = _read({key: form_value(form, key, page.layout) for key in FIELDS})
    errors = validate_order(page, values, runtime.now().date(), runtime.config.seed)
    if errors:
        return _form_page(request, who, values, errors | {"_form": page.msg("fix_errors")})
    security = find_security(values["sec.order.code"])
    return render(
        "securities/order_confirm.html",
        page,
        menu=menu("securities", page, "sec.menu.order"),
        user=who.user,
        values=values,
        security=security,
        amount=(Decimal(values["sec.order.price"].replace(",", "")) * int(values["sec.order.quantity"])),
        token=who.session.issue_token(),
    )


@router.post("/order/confirm")
async def order_confirm(request: Request) -> Response:
    who = require_login(request, "securities")
    runtime, page = runtime_of(request), page_of(request)
    form = await request.form()
    token = form_value(form, "form_token", page.layout)
    previous = who.session.result_of(token)
    if previous is not None:
        return RedirectResponse(f"/securities/order/result/{previous}?duplicate=1", status_code=303)
    values = _read({key: form_value(form, key, page.layout) for key in FIELDS})
    errors = validate_order(page, values, runtime.now().date(), runtime.config.seed)
    security = find_security(values["sec.order.code"])
    if errors or security is None:
        return _form_page(request, who, values, errors | {"_form": page.msg("fix_errors")})
    if not who.session.spend_token(token):
        return _form_page(request, who, values, {"_form": page.msg("stale_form")})
    now = runtime.now()
    record = OrderRecord(
        order_no=runtime.state.next_number("WT", now),
        username=who.user.username,
        code=security.code,
        name=security.name,
        side=values["sec.order.side"],
        price=f"{Decimal(values['sec.order.price'].replace(',', '')):.2f}",
        quantity=int(values["sec.order.quantity"]),
        submitted_at=now.isoformat(timespec="seconds"),
    )
    runtime.state.record_order(record)
    who.session.remember_result(token, record.order_no)
    return RedirectResponse(f"/securities/order/result/{record.order_no}", status_code=303)


@router.get("/order/result/{number}")
async def order_result(request: Request, number: str) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    record = next((o for o in runtime_of(request).state.snapshot().orders if o.order_no == number), None)
    return render(
        "securities/order_result.html",
        page,
        status_code=200 if record else 404,
        menu=menu("securities", page, "sec.menu.order"),
        user=who.user,
        record=record,
        duplicate=request.query_params.get("duplicate") == "1",
    )
