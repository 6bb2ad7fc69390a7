"""Compliance report filing (合规报告报送): a form with a file upload inside a shadow-DOM web component."""

from __future__ import annotations

import hashlib
from datetime import date

from fastapi import APIRouter, Request
from starlette.datastructures import FormData, UploadFile
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.fields import field_name, other_field_name
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.state import ComplianceReport
from finrpa.sandbox.web import LoggedIn, form_value, page_of, require_login, runtime_of

router = APIRouter(prefix="/securities")
REPORT_TYPES = ("quarterly", "annual", "aml", "incident")
REPORT_FIELDS = ("sec.report_type", "sec.period", "sec.remarks")
MAX_FILE_BYTES = 10 * 1024 * 1024
REMARKS_LIMIT = 500


def reporting_periods(today: date) -> list[tuple[str, str, str]]:
    """(code, Chinese, English) for each quarter since 2023 up to the current one, then the full years."""
    quarters_zh = ("第一季度", "第二季度", "第三季度", "第四季度")
    periods: list[tuple[str, str, str]] = []
    for year in range(today.year, 2022, -1):
        for quarter in range(4, 0, -1):
            if (year, quarter) <= (today.year, (today.month - 1) // 3 + 1):
                periods.append(
                    (f"{year}Q{quarter}", f"{year}年{quarters_zh[quarter - 1]}", f"{year} Q{quarter}")
                )
    periods += [(f"{year}FY", f"{year}年度", f"FY{year}") for year in range(today.year - 1, 2022, -1)]
    return periods


def _upload(form: FormData, layout: str) -> UploadFile | None:
    for name in (field_name("sec.attachment", layout), other_field_name("sec.attachment", layout)):
        value = form.get(name)
        if isinstance(value, UploadFile) and value.filename:
            return value
    return None


def validate_report(
    page: PageContext, values: dict[str, str], periods: list[str], content: bytes | None
) -> dict[str, str]:
    errors: dict[str, str] = {}
    if values["sec.report_type"] not in REPORT_TYPES:
        errors["sec.report_type"] = page.msg("bad_choice", field=page.t("sec.report_type"))
    if values["sec.period"] not in periods:
        errors["sec.period"] = page.msg("bad_choice", field=page.t("sec.period"))
    if content is None:
        errors["sec.attachment"] = page.msg("file_required")
    elif len(content) > MAX_FILE_BYTES:
        errors["sec.attachment"] = page.msg("file_too_big")
    if len(values["sec.remarks"]) > REMARKS_LIMIT:
        errors["sec.remarks"] = page.msg("too_long", field=page.t("sec.remarks"), limit=REMARKS_LIMIT)
    return errors


def _form_page(request: Request, who: LoggedIn, values: dict[str, str], errors: dict[str, str]) -> Response:
    page = page_of(request)
    return render(
        "securities/report.html",
        page,
        menu=menu("securities", page, "sec.menu.report"),
        user=who.user,
        values=values,
        errors=errors,
        report_types=REPORT_TYPES,
        periods=reporting_periods(runtime_of(request).now().date()),
        token=who.session.issue_token(),
    )


@router.get("/report")
async def report_form(request: Request) -> Response:
    who = require_login(request, "securities")
    return _form_page(request, who, dict.fromkeys(REPORT_FIELDS, ""), {})


@router.post("/report")
async def report_submit(request: Request) -> Response:
    who = require_login(request, "securities")
    runtime, page = runtime_of(request), page_of(request)
    async with request.form(max_part_size=MAX_FILE_BYTES + 1024) as form:  # closes the spooled upload
        token = form_value(form, "form_token", page.layout)
        values = {key: form_value(form, key, page.layout) for key in REPORT_FIELDS}
        upload = _upload(form, page.layout)
        filename, content = (upload.filename or "", await upload.read()) if upload else ("", None)
    previous = who.session.result_of(token)
    if previous is not None:
        return RedirectResponse(f"/securities/report/result/{previous}?duplicate=1", status_code=303)
    periods = [code for code, _, _ in reporting_periods(runtime.now().date())]
    errors = validate_report(page, values, periods, content)
    if errors or content is None:
        return _form_page(request, who, values, errors | {"_form": page.msg("fix_errors")})
    if not who.session.spend_token(token):
        return _form_page(request, who, values, {"_form": page.msg("stale_form")})
    now = runtime.now()
    record = ComplianceReport(
        report_no=runtime.state.next_number("BS", now),
        username=who.user.username,
        report_type=values["sec.report_type"],
        period=values["sec.period"],
        filename=filename,
        size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        remarks=values["sec.remarks"],
        submitted_at=now.isoformat(timespec="seconds"),
    )
    runtime.state.record_report(record)
    who.session.remember_result(token, record.report_no)
    return RedirectResponse(f"/securities/report/result/{record.report_no}", status_code=303)


@router.get("/report/result/{number}")
async def report_result(request: Request, number: str) -> Response:
    who = require_login(request, "securities")
    page = page_of(request)
    record = next((r for r in runtime_of(request).state.snapshot().reports if r.report_no == number), None)
    return render(
        "securities/report_result.html",
        page,
        status_code=200 if record else 404,
        menu=menu("securities", page, "sec.menu.report"),
        user=who.user,
        record=record,
        duplicate=request.query_params.get("duplicate") == "1",
    )
