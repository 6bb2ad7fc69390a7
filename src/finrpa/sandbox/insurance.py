"""The insurance portal (保险核心): workbench, policy search-and-select and policy details."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox import insurance_apply, insurance_claim
from finrpa.sandbox.menus import menu
from finrpa.sandbox.policies import find_policy, search_policies
from finrpa.sandbox.render import render
from finrpa.sandbox.web import page_of, query_value, require_login, runtime_of

router = APIRouter()
router.include_router(insurance_apply.router)
router.include_router(insurance_claim.router)
SEARCH_DELAY_S = 0.25  # the policy system answers searches after a short pause, as real ones do


@router.get("/insurance")
async def insurance_root() -> Response:
    return RedirectResponse("/insurance/", status_code=307)


@router.get("/insurance/")
async def workbench(request: Request) -> Response:
    who = require_login(request, "insurance")
    page = page_of(request)
    return render("insurance/home.html", page, menu=menu("insurance", page, ""), user=who.user)


@router.get("/insurance/policies")
async def policy_search(request: Request) -> Response:
    """The search page; with a query (no-JS submit) it shows the results at once."""
    who = require_login(request, "insurance")
    page = page_of(request)
    query = query_value(request, "ins.search.query", page.layout)
    results = search_policies(runtime_of(request).config.seed, query) if query else None
    return render(
        "insurance/search.html",
        page,
        menu=menu("insurance", page, "ins.menu.search"),
        user=who.user,
        query=query,
        results=results,
    )


@router.get("/insurance/policies/search")
async def policy_search_results(request: Request) -> Response:
    """The results list as an HTML fragment, for search-as-you-type."""
    require_login(request, "insurance")
    await asyncio.sleep(SEARCH_DELAY_S)
    query = request.query_params.get("q", "")
    results = search_policies(runtime_of(request).config.seed, query) if query.strip() else None
    return render("insurance/_results.html", page_of(request), query=query, results=results)


@router.get("/insurance/policies/{policy_no}")
async def policy_detail(request: Request, policy_no: str) -> Response:
    who = require_login(request, "insurance")
    page = page_of(request)
    policy = find_policy(runtime_of(request).config.seed, policy_no)
    return render(
        "insurance/policy.html",
        page,
        status_code=200 if policy else 404,
        menu=menu("insurance", page, "ins.menu.search"),
        user=who.user,
        policy=policy,
        today=runtime_of(request).now().date(),
    )
