"""Claim application (理赔申请): policy number, date and cause of loss, amount, description → 理赔编号."""

from __future__ import annotations

from datetime import date

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.menus import menu
from finrpa.sandbox.policies import find_policy
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.state import ClaimRecord
from finrpa.sandbox.validation import parse_amount, parse_date
from finrpa.sandbox.web import LoggedIn, form_value, page_of, require_login, runtime_of

router = APIRouter(prefix="/insurance")
FIELDS = ("ins.policy_no", "ins.accident_date", "ins.cause", "ins.claim_amount", "ins.description")
CAUSES = ("accident", "illness", "property", "other")
DESCRIPTION_LIMIT = 500


def _accident_error(page: PageContext, seed: int, values: dict[str, str], today: date) -> str | None:
    day = parse_date(values["ins.accident_date"])
    if day is None:
        return page.msg("bad_date", field=page.t("ins.accident_date"))
    if day > today:
        return page.msg("date_future", field=page.t("ins.accident_date"))
    policy = find_policy(seed, values["ins.policy_no"])
    if policy is not None and not policy.in_force_on(day):
        return page.msg("policy_not_in_force")
    return None


def validate_claim(page: PageContext, seed: int, values: dict[str, str], today: date) -> dict[str, str]:
    """A message per wrong field; empty when the claim can be accepted."""
    errors = {key: page.msg("required", field=page.t(key)) for key in FIELDS if not values[key]}
    if values["ins.policy_no"] and find_policy(seed, values["ins.policy_no"]) is None:
        errors["ins.policy_no"] = page.msg("unknown_policy")
    if values["ins.accident_date"]:
        problem = _accident_error(page, seed, values, today)
        if problem:
            errors["ins.accident_date"] = problem
    if values["ins.cause"] and values["ins.cause"] not in CAUSES:
        errors["ins.cause"] = page.msg("bad_choice", field=page.t("ins.cause"))
    if values["ins.claim_amount"] and parse_amount(values["ins.claim_amount"]) is None:
        errors["ins.claim_amount"] = page.msg("bad_amount")
    if len(values["ins.description"]) > DESCRIPTION_LIMIT:
        errors["ins.description"] = page.msg(
            "too_long", field=page.t("ins.description"), limit=DESCRIPTION_LIMIT
        )
    return errors


def _form_page(request: Request, who: LoggedIn, values: dict[str, str], errors: dict[str, str]) -> Response:
    page = page_of(request)
    return render(
        "insurance/claim.html",
        page,
        menu=menu("insurance", page, "ins.menu.claim"),
        user=who.user,
        values=values,
        errors=errors,
        causes=CAUSES,
        token=who.session.issue_token(),
    )


@router.get("/claim")
async def claim_form(request: Request) -> Response:
    who = require_login(request, "insurance")
    values = dict.fromkeys(FIELDS, "") | {"ins.policy_no": request.query_params.get("policy", "")}
    return _form_page(request, who, values, {})


def _record(request: Request, who: LoggedIn, values: dict[str, str]) -> str:
    runtime = runtime_of(request)
    now = runtime.now()
    amount = parse_amount(values["ins.claim_amount"])
    record = ClaimRecord(
        claim_no=runtime.state.next_number("LP", now),
        username=who.user.username,
        policy_no=values["ins.policy_no"].upper(),
        accident_date=values["ins.accident_date"],
        cause=values["ins.cause"],
        amount=f"{amount:.2f}",
        description=values["ins.description"],
        submitted_at=now.isoformat(timespec="seconds"),
    )
    runtime.state.record_claim(record)
    return record.claim_no


@router.post("/claim")
async def claim_submit(request: Request) -> Response:
    who = require_login(request, "insurance")
    runtime, page = runtime_of(request), page_of(request)
    form = await request.form()
    token = form_value(form, "form_token", page.layout)
    previous = who.session.result_of(token)
    if previous is not None:
        return RedirectResponse(f"/insurance/claim/result/{previous}?duplicate=1", status_code=303)
    values = {key: form_value(form, key, page.layout) for key in FIELDS}
    errors = validate_claim(page, runtime.config.seed, values, runtime.now().date())
    if errors:
        return _form_page(request, who, values, errors | {"_form": page.msg("fix_errors")})
    if not who.session.spend_token(token):
        return _form_page(request, who, values, {"_form": page.msg("stale_form")})
    number = _record(request, who, values)
    who.session.remember_result(token, number)
    return RedirectResponse(f"/insurance/claim/result/{number}", status_code=303)


@router.get("/claim/result/{number}")
async def claim_result(request: Request, number: str) -> Response:
    who = require_login(request, "insurance")
    page = page_of(request)
    record = next((c for c in runtime_of(request).state.snapshot().claims if c.claim_no == number), None)
    return render(
        "insurance/claim_result.html",
        page,
        status_code=200 if record else 404,
        menu=menu("insurance", page, "ins.menu.claim"),
        user=who.user,
        record=record,
        duplicate=request.query_params.get("duplicate") == "1",
    )
