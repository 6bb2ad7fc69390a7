"""Policy application (投保单录入): ID checksum, custom product dropdown, beneficiaries in an iframe."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.directory import PRODUCTS, find_product
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.state import Beneficiary, PolicyApplication
from finrpa.sandbox.validation import is_valid_prc_id, parse_date
from finrpa.sandbox.web import LoggedIn, form_value, page_of, require_login, runtime_of

router = APIRouter(prefix="/insurance")
FIELDS = (
    "ins.applicant_name",
    "ins.id_type",
    "ins.id_number",
    "ins.product",
    "ins.start_date",
    "ins.end_date",
)
ID_TYPES = ("resident", "passport", "hkmo")
RELATIONS = ("spouse", "child", "parent", "other")


@dataclass(frozen=True)
class ApplicationCheck:
    beneficiaries: list[Beneficiary]
    errors: dict[str, str]


def _id_error(page: PageContext, id_type: str, number: str) -> str | None:
    if id_type == "resident":
        return None if is_valid_prc_id(number) else page.msg("bad_id")
    return None if re.fullmatch(r"[A-Za-z0-9]{5,20}", number) else page.msg("bad_id")


def _field_errors(page: PageContext, values: dict[str, str]) -> dict[str, str]:
    errors = {key: page.msg("required", field=page.t(key)) for key in FIELDS if not values[key]}
    if values["ins.applicant_name"] and len(values["ins.applicant_name"]) > 30:
        errors["ins.applicant_name"] = page.msg("too_long", field=page.t("ins.applicant_name"), limit=30)
    if values["ins.id_type"] and values["ins.id_type"] not in ID_TYPES:
        errors["ins.id_type"] = page.msg("bad_choice", field=page.t("ins.id_type"))
    if values["ins.id_number"] and "ins.id_type" not in errors:
        problem = _id_error(page, values["ins.id_type"], values["ins.id_number"])
        if problem:
            errors["ins.id_number"] = problem
    if values["ins.product"] and find_product(values["ins.product"]) is None:
        errors["ins.product"] = page.msg("bad_choice", field=page.t("ins.product"))
    return errors | _date_errors(page, values)


def _date_errors(page: PageContext, values: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    for key in ("ins.start_date", "ins.end_date"):
        if values[key] and parse_date(values[key]) is None:
            errors[key] = page.msg("bad_date", field=page.t(key))
    start, end = parse_date(values["ins.start_date"]), parse_date(values["ins.end_date"])
    if start and end and end <= start:
        errors["ins.end_date"] = page.msg("end_before_start")
    return errors


def parse_beneficiaries(page: PageContext, raw: str) -> tuple[list[Beneficiary], str | None]:
    """The beneficiary rows from the hidden field's JSON, or the message saying what is wrong."""
    try:
        rows = json.loads(raw or "[]")
    except json.JSONDecodeError:
        rows = None
    if not isinstance(rows, list) or not rows:
        return [], page.msg("bene_required")
    parsed: list[Beneficiary] = []
    for row in rows:
        name = str(row.get("name", "")).strip() if isinstance(row, dict) else ""
        relation = str(row.get("relation", "")) if isinstance(row, dict) else ""
        share = str(row.get("share", "")).strip() if isinstance(row, dict) else ""
        if not name or relation not in RELATIONS or not share.isdigit() or not 0 < int(share) <= 100:
            return [], page.msg("bene_incomplete")
        parsed.append(Beneficiary(name=name, relation=relation, share=int(share)))
    if sum(b.share for b in parsed) != 100:
        return parsed, page.msg("bene_share")
    return parsed, None


def validate_application(
    page: PageContext, values: dict[str, str], raw_beneficiaries: str
) -> ApplicationCheck:
    errors = _field_errors(page, values)
    beneficiaries, problem = parse_beneficiaries(page, raw_beneficiaries)
    if problem:
        errors["ins.beneficiaries"] = problem
    return ApplicationCheck(beneficiaries, errors)


def _form_page(
    request: Request, who: LoggedIn, values: dict[str, str], beneficiaries: str, errors: dict[str, str]
) -> Response:
    page = page_of(request)
    return render(
        "insurance/apply.html",
        page,
        menu=menu("insurance", page, "ins.menu.apply"),
        user=who.user,
        values=values,
        errors=errors,
        products=PRODUCTS,
        id_types=ID_TYPES,
        beneficiaries=beneficiaries,
        frame_src="/insurance/apply/beneficiaries?" + urlencode({"rows": beneficiaries}),
        token=who.session.issue_token(),
    )


@router.get("/apply")
async def application_form(request: Request) -> Response:
    who = require_login(request, "insurance")
    return _form_page(request, who, dict.fromkeys(FIELDS, "") | {"ins.id_type": "resident"}, "", {})


@router.get("/apply/beneficiaries")
async def beneficiary_frame(request: Request) -> Response:
    """The beneficiary rows as their own document, shown in an iframe of the application page."""
    require_login(request, "insurance")
    try:
        rows = json.loads(request.query_params.get("rows") or "[]")
    except json.JSONDecodeError:
        rows = []
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    return render("insurance/beneficiaries.html", page_of(request), rows=rows or [{}], relations=RELATIONS)


def _record(request: Request, who: LoggedIn, values: dict[str, str], check: ApplicationCheck) -> str:
    runtime = runtime_of(request)
    now = runtime.now()
    product = find_product(values["ins.product"])
    record = PolicyApplication(
        application_no=runtime.state.next_number("TB", now),
        username=who.user.username,
        applicant_name=values["ins.applicant_name"],
        id_type=values["ins.id_type"],
        id_number=values["ins.id_number"].upper(),
        product_code=values["ins.product"],
        product_name=product.name_zh if product else "",
        start_date=values["ins.start_date"],
        end_date=values["ins.end_date"],
        beneficiaries=check.beneficiaries,
        submitted_at=now.isoformat(timespec="seconds"),
    )
    runtime.state.record_application(record)
    return record.application_no


@router.post("/apply")
async def application_submit(request: Request) -> Response:
    who = require_login(request, "insurance")
    page = page_of(request)
    form = await request.form()
    token = form_value(form, "form_token", page.layout)
    previous = who.session.result_of(token)
    if previous is not None:
        return RedirectResponse(f"/insurance/apply/result/{previous}?duplicate=1", status_code=303)
    values = {key: form_value(form, key, page.layout) for key in FIELDS}
    raw = form_value(form, "ins.beneficiaries", page.layout)
    check = validate_application(page, values, raw)
    if check.errors:
        return _form_page(request, who, values, raw, check.errors | {"_form": page.msg("fix_errors")})
    if not who.session.spend_token(token):
        return _form_page(request, who, values, raw, {"_form": page.msg("stale_form")})
    number = _record(request, who, values, check)
    who.session.remember_result(token, number)
    return RedirectResponse(f"/insurance/apply/result/{number}", status_code=303)


@router.get("/apply/result/{number}")
async def application_result(request: Request, number: str) -> Response:
    who = require_login(request, "insurance")
    page = page_of(request)
    record = next((a for a in runtime_of(request).state.applications() if a.application_no == number), None)
    return render(
        "insurance/apply_result.html",
        page,
        status_code=200 if record else 404,
        menu=menu("insurance", page, "ins.menu.apply"),
        user=who.user,
        record=record,
        duplicate=request.query_params.get("duplicate") == "1",
    )
