"""Bank statement query (账户明细查询): form with custom date pickers, paged results, CSV and PDF export."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from finrpa.sandbox.directory import Account, DemoUser, find_account
from finrpa.sandbox.exports import attachment_header, statement_csv
from finrpa.sandbox.fields import field_name
from finrpa.sandbox.ledger import StatementRow, statement_rows
from finrpa.sandbox.menus import menu
from finrpa.sandbox.paging import Pagination, parse_page
from finrpa.sandbox.render import PageContext, format_money, render
from finrpa.sandbox.validation import parse_date
from finrpa.sandbox.web import page_of, query_value, require_login, runtime_of

router = APIRouter(prefix="/bank")
FIELDS = ("stmt.account", "stmt.start_date", "stmt.end_date")
MAX_RANGE = timedelta(days=366)
COLUMNS_V1 = (
    "stmt.col.date",
    "stmt.col.time",
    "stmt.col.summary",
    "stmt.col.counterparty",
    "stmt.col.counterparty_account",
    "stmt.col.debit",
    "stmt.col.credit",
    "stmt.col.balance",
    "stmt.col.serial",
)
COLUMNS_V2 = (
    "stmt.col.date",
    "stmt.col.time",
    "stmt.col.credit",
    "stmt.col.debit",
    "stmt.col.balance",
    "stmt.col.counterparty",
    "stmt.col.counterparty_account",
    "stmt.col.summary",
    "stmt.col.serial",
)


def _cells(row: StatementRow, columns: tuple[str, ...]) -> list[tuple[str, bool]]:
    """The row's cells in column order: (text, is_number)."""
    values = {
        "stmt.col.date": (row.date.isoformat(), False),
        "stmt.col.time": (row.time, False),
        "stmt.col.summary": (row.summary, False),
        "stmt.col.counterparty": (row.counterparty, False),
        "stmt.col.counterparty_account": (row.counterparty_account, False),
        "stmt.col.debit": (format_money(row.debit), True),
        "stmt.col.credit": (format_money(row.credit), True),
        "stmt.col.balance": (format_money(row.balance), True),
        "stmt.col.serial": (row.serial, False),
    }
    return [values[column] for column in columns]


@dataclass(frozen=True)
class StatementQuery:
    account: Account
    start: date
    end: date

    def params(self, layout: str) -> dict[str, str]:
        """The query string of this query in `layout`'s field names."""
        return {
            field_name("stmt.account", layout): self.account.number,
            field_name("stmt.start_date", layout): self.start.isoformat(),
            field_name("stmt.end_date", layout): self.end.isoformat(),
        }


def _date_error(page: PageContext, key: str, value: str, today: date) -> str | None:
    label = page.t(key)
    if not value:
        return page.msg("required", field=label)
    parsed = parse_date(value)
    if parsed is None:
        return page.msg("bad_date", field=label)
    return page.msg("date_future", field=label) if parsed > today else None


def validate_query(
    page: PageContext, user: DemoUser, values: dict[str, str], today: date
) -> tuple[StatementQuery | None, dict[str, str]]:
    """The query, or the message per field key that is wrong."""
    errors: dict[str, str] = {}
    account = find_account(user, values["stmt.account"])
    if account is None:
        errors["stmt.account"] = page.msg("unknown_account")
    for key in ("stmt.start_date", "stmt.end_date"):
        problem = _date_error(page, key, values[key], today)
        if problem:
            errors[key] = problem
    if errors or account is None:
        return None, errors
    start, end = date.fromisoformat(values["stmt.start_date"]), date.fromisoformat(values["stmt.end_date"])
    if start > end:
        return None, {"stmt.end_date": page.msg("date_order")}
    if end - start > MAX_RANGE:
        return None, {"stmt.end_date": page.msg("date_range")}
    return StatementQuery(account, start, end), {}


def _read(
    request: Request, user: DemoUser, page: PageContext
) -> tuple[dict[str, str], StatementQuery | None, dict[str, str]]:
    values = {key: query_value(request, key, page.layout) for key in FIELDS}
    if not any(values.values()):
        today = runtime_of(request).now().date()
        defaults = {
            "stmt.account": user.accounts[0].number,
            "stmt.start_date": (today - timedelta(days=30)).isoformat(),
            "stmt.end_date": today.isoformat(),
        }
        return defaults, None, {}
    query, errors = validate_query(page, user, values, runtime_of(request).now().date())
    return values, query, errors


def _rows(request: Request, query: StatementQuery) -> list[StatementRow]:
    return statement_rows(query.account.number, query.start, query.end, runtime_of(request).config.seed)


@router.get("/statement")
async def statement(request: Request) -> Response:
    who = require_login(request, "bank")
    page = page_of(request)
    values, query, errors = _read(request, who.user, page)
    context: dict[str, Any] = {"values": values, "errors": errors, "query": query, "user": who.user}
    if query is not None:
        rows = _rows(request, query)
        paging = Pagination.of(len(rows), parse_page(request.query_params.get("page")))
        base = urlencode(query.params(page.layout))
        columns = COLUMNS_V2 if page.layout == "v2" else COLUMNS_V1
        table_rows = [_cells(row, columns) for row in rows[paging.slice()]]
        context |= {"columns": columns, "table_rows": table_rows, "paging": paging, "base_query": base}
    frame_src = "/bank/statement/form?" + urlencode({page.name(k): values[k] for k in FIELDS})
    return render(
        "bank/statement.html",
        page,
        menu=menu("bank", page, "bank.menu.statement"),
        frame_src=frame_src,
        **context,
    )


@router.get("/statement/form")
async def statement_form_frame(request: Request) -> Response:
    """The query form as its own document: layout v2 shows it inside an iframe."""
    who = require_login(request, "bank")
    page = page_of(request)
    values, _, errors = _read(request, who.user, page)
    return render("bank/statement_frame.html", page, values=values, errors=errors, user=who.user)


def _export_query(request: Request) -> tuple[PageContext, StatementQuery | None]:
    who = require_login(request, "bank")
    page = page_of(request)
    _, query, _ = _read(request, who.user, page)
    return page, query


@router.get("/statement/export.csv")
async def export_csv(request: Request) -> Response:
    page, query = _export_query(request)
    if query is None:
        return RedirectResponse("/bank/statement?" + request.url.query, status_code=303)
    stem = f"{query.account.number}_{query.start:%Y%m%d}-{query.end:%Y%m%d}.csv"
    return Response(
        statement_csv(_rows(request, query), page.lang),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment_header(f"交易明细_{stem}", f"statement_{stem}")},
    )


@router.get("/statement/export.json")
async def export_json(request: Request) -> Response:
    """All rows of a query, for the page's JS that builds the PDF."""
    _, query = _export_query(request)
    if query is None:
        return JSONResponse({"detail": "Fix the query conditions first."}, status_code=400)
    rows = [
        [
            r.date.isoformat(),
            r.time,
            r.summary,
            r.counterparty,
            f"{r.debit or ''}",
            f"{r.credit or ''}",
            f"{r.balance}",
        ]
        for r in _rows(request, query)
    ]
    meta = {"account": query.account.number, "holder": query.account.holder}
    return JSONResponse(meta | {"start": query.start.isoformat(), "end": query.end.isoformat(), "rows": rows})
