"""Trade-record query (成交记录查询): date range and code filter, paged results, CSV export."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.directory import Account, DemoUser, find_security
from finrpa.sandbox.exports import attachment_header, trades_csv
from finrpa.sandbox.fields import field_name
from finrpa.sandbox.menus import menu
from finrpa.sandbox.paging import Pagination, parse_page
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.trades import TradeRow, trade_rows
from finrpa.sandbox.validation import parse_date
from finrpa.sandbox.web import page_of, query_value, require_login, runtime_of

router = APIRouter(prefix="/securities")
FIELDS = ("sec.start_date", "sec.end_date", "sec.code_filter")
MAX_RANGE = timedelta(days=366)


@dataclass(frozen=True)
class TradeQuery:
    account: Account
    start: date
    end: date
    code: str

    def params(self, layout: str) -> dict[str, str]:
        return {
            field_name("sec.start_date", layout): self.start.isoformat(),
            field_name("sec.end_date", layout): self.end.isoformat(),
            field_name("sec.code_filter", layout): self.code,
        }


def _date_errors(page: PageContext, values: dict[str, str], today: date) -> dict[str, str]:
    errors: dict[str, str] = {}
    for key in ("sec.start_date", "sec.end_date"):
        parsed = parse_date(values[key])
        if not values[key]:
            errors[key] = page.msg("required", field=page.t(key))
        elif parsed is None:
            errors[key] = page.msg("bad_date", field=page.t(key))
        elif parsed > today:
            errors[key] = page.msg("date_future", field=page.t(key))
    return errors


def validate_query(
    page: PageContext, user: DemoUser, values: dict[str, str], today: date
) -> tuple[TradeQuery | None, dict[str, str]]:
    errors = _date_errors(page, values, today)
    if values["sec.code_filter"] and find_security(values["sec.code_filter"]) is None:
        errors["sec.code_filter"] = page.msg("unknown_security")
    if errors:
        return None, errors
    start, end = date.fromisoformat(values["sec.start_date"]), date.fromisoformat(values["sec.end_date"])
    if start > end:
        return None, {"sec.end_date": page.msg("date_order")}
    if end - start > MAX_RANGE:
        return None, {"sec.end_date": page.msg("date_range")}
    return TradeQuery(user.accounts[0], start, end, values["sec.code_filter"]), {}


def _read(
    request: Request, user: DemoUser, page: PageContext
) -> tuple[dict[str, str], TradeQuery | None, dict[str, str]]:
    values = {key: query_value(request, key, page.layout) for key in FIELDS}
    today = runtime_of(request).now().date()
    if not any(values.values()):
        defaults = {
            "sec.start_date": (today - timedelta(days=30)).isoformat(),
            "sec.end_date": today.isoformat(),
        }
        return defaults | {"sec.code_filter": ""}, None, {}
    query, errors = validate_query(page, user, values, today)
    return values, query, errors


def _rows(request: Request, query: TradeQuery) -> list[TradeRow]:
    seed = runtime_of(request).config.seed
    return trade_rows(query.account.number, query.start, query.end, seed, query.code)


@router.get("/trades")
async def trades(request: Request) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    values, query, errors = _read(request, who.user, page)
    context: dict[str, Any] = {"values": values, "errors": errors, "query": query}
    if query is not None:
        rows = _rows(request, query)
        paging = Pagination.of(len(rows), parse_page(request.query_params.get("page")))
        context |= {
            "rows": rows[paging.slice()],
            "paging": paging,
            "base_query": urlencode(query.params(page.layout)),
        }
    return render(
        "securities/trades.html",
        page,
        menu=menu("securities", page, "sec.menu.trades"),
        user=who.user,
        **context,
    )


@router.get("/trades/export.csv")
async def export_trades(request: Request) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    _, query, _ = _read(request, who.user, page)
    if query is None:
        return RedirectResponse("/securities/trades?" + request.url.query, status_code=303)
    stem = f"{query.account.number}_{query.start:%Y%m%d}-{query.end:%Y%m%d}.csv"
    return Response(
        trades_csv(_rows(request, query), page.lang),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment_header(f"成交记录_{stem}", f"trades_{stem}")},
    )
