"""The bank portal (企业网银): home with account overview, plus the statement and payment pages."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox import bank_payment, bank_statement
from finrpa.sandbox.bank_payment import available_balance
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import render
from finrpa.sandbox.web import page_of, require_login, runtime_of

router = APIRouter()
router.include_router(bank_statement.router)
router.include_router(bank_payment.router)


@router.get("/bank")
async def bank_root() -> Response:
    return RedirectResponse("/bank/", status_code=307)


@router.get("/bank/")
async def overview(request: Request) -> Response:
    who = require_login(request, "bank")
    page = page_of(request)
    runtime = runtime_of(request)
    balances = {a.number: available_balance(runtime, who.user.username, a.number) for a in who.user.accounts}
    return render(
        "bank/overview.html",
        page,
        menu=menu("bank", page, "bank.menu.overview"),
        user=who.user,
        balances=balances,
    )
