"""The securities portal (证券机构业务平台): home, plus report filing, trade records and order entry."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox import securities_order, securities_report, securities_trades
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import render
from finrpa.sandbox.web import page_of, require_login

router = APIRouter()
for _module in (securities_report, securities_trades, securities_order):
    router.include_router(_module.router)


@router.get("/securities")
async def securities_root() -> Response:
    return RedirectResponse("/securities/", status_code=307)


@router.get("/securities/")
async def home(request: Request) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    return render("securities/home.html", page, menu=menu("securities", page, ""), user=who.user)
