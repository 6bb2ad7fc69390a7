"""Bank payment (对公付款): form, in-page validation, confirm dialog, reference number, payment records."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import RedirectResponse, Response

from finrpa.sandbox.directory import BANKS, DemoUser, find_account
from finrpa.sandbox.ledger import balance_on
from finrpa.sandbox.menus import menu
from finrpa.sandbox.render import PageContext, render
from finrpa.sandbox.runtime import SandboxRuntime
from finrpa.sandbox.state import PaymentRecord
from finrpa.sandbox.validation import parse_amount
from finrpa.sandbox.web import LoggedIn, form_value, page_of, query_value, require_login, runtime_of

router = APIRouter(prefix="/bank")
FIELDS = (
    "pay.payer_account",
    "pay.payee_name",
    "pay.payee_account",
    "pay.payee_bank",
    "pay.amount",
    "pay.purpose",
)
PAYMENT_LIMIT = Decimal("5000000.00")
_TEXT_LIMITS = {"pay.payee_name": 60, "pay.purpose": 50}


def available_balance(runtime: SandboxRuntime, username: str, account: str) -> Decimal:
    """Today's ledger balance less what this user has paid from the account in the sandbox."""
    base = balance_on(account, runtime.now().date(), runtime.config.seed)
    paid = sum(
        (Decimal(p.amount) for p in runtime.state.payments_of(username) if p.payer_account == account),
        Decimal(0),
    )
    return base - paid


@dataclass(frozen=True)
class PaymentCheck:
    amount: Decimal | None
    errors: dict[str, str]


def _text_errors(page: PageContext, values: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    for key in FIELDS:
        if not values[key]:
            errors[key] = page.msg("required", field=page.t(key))
        elif key in _TEXT_LIMITS and len(values[key]) > _TEXT_LIMITS[key]:
            errors[key] = page.msg("too_long", field=page.t(key), limit=_TEXT_LIMITS[key])
    if values["pay.payee_account"] and not re.fullmatch(r"\d{8,32}", values["pay.payee_account"]):
        errors["pay.payee_account"] = page.msg("bad_payee_account")
    if values["pay.payee_bank"] and values["pay.payee_bank"] not in BANKS:
        errors["pay.payee_bank"] = page.msg("bad_choice", field=page.t("pay.payee_bank"))
    return errors


def validate_payment(
    page: PageContext, runtime: SandboxRuntime, user: DemoUser, values: dict[str, str]
) -> PaymentCheck:
    """The amount when every field is right, else a message per wrong field."""
    errors = _text_errors(page, values)
    if find_account(user, values["pay.payer_account"]) is None:
        errors["pay.payer_account"] = page.msg("unknown_account")
    amount = parse_amount(values["pay.amount"]) if values["pay.amount"] else None
    if values["pay.amount"] and amount is None:
        errors["pay.amount"] = page.msg("bad_amount")
    elif amount is not None and amount > PAYMENT_LIMIT:
        errors["pay.amount"] = page.msg("amount_limit", limit=f"{PAYMENT_LIMIT:,.2f}")
    elif amount is not None and "pay.payer_account" not in errors:
        if amount > available_balance(runtime, user.username, values["pay.payer_account"]):
            errors["pay.amount"] = page.msg("amount_balance")
    return PaymentCheck(None if errors else amount, errors)


def _form_page(request: Request, who: LoggedIn, values: dict[str, str], errors: dict[str, str]) -> Response:
    page = page_of(request)
    return render(
        "bank/payment.html",
        page,
        menu=menu("bank", page, "bank.menu.payment"),
        user=who.user,
        banks=BANKS,
        values=values,
        errors=errors,
        token=who.session.issue_token(),
    )


@router.get("/payment")
async def payment_form(request: Request) -> Response:
    who = require_login(request, "bank")
    values = dict.fromkeys(FIELDS, "") | {"pay.payer_account": who.user.accounts[0].number}
    return _form_page(request, who, values, {})


def _record(runtime: SandboxRuntime, username: str, values: dict[str, str], amount: Decimal) -> PaymentRecord:
    now = runtime.now()
    record = PaymentRecord(
        reference=runtime.state.next_number("HX", now),
        username=username,
        payer_account=values["pay.payer_account"],
        payee_name=values["pay.payee_name"],
        payee_account=values["pay.payee_account"],
        payee_bank=values["pay.payee_bank"],
        amount=f"{amount:.2f}",
        purpose=values["pay.purpose"],
        submitted_at=now.isoformat(timespec="seconds"),
    )
    runtime.state.record_payment(record)
    return record


def _read_values(form: FormData, layout: str) -> dict[str, str]:
    values = {key: form_value(form, key, layout) for key in FIELDS}
    values["pay.payee_account"] = values["pay.payee_account"].replace(" ", "")
    return values


@router.post("/payment")
async def payment_submit(request: Request) -> Response:
    who = require_login(request, "bank")
    runtime, page = runtime_of(request), page_of(request)
    form = await request.form()
    token = form_value(form, "form_token", page.layout)
    previous = who.session.result_of(token)
    if previous is not None:
        return _result_page(request, who, previous, duplicate=True)
    values = _read_values(form, page.layout)
    check = validate_payment(page, runtime, who.user, values)
    if check.amount is None:
        return _form_page(request, who, values, check.errors | {"_form": page.msg("fix_errors")})
    if not who.session.spend_token(token):
        return _form_page(request, who, values, {"_form": page.msg("stale_form")})
    record = _record(runtime, who.user.username, values, check.amount)
    who.session.remember_result(token, record.reference)
    return RedirectResponse(f"/bank/payment/result/{record.reference}", status_code=303)


def _result_page(request: Request, who: LoggedIn, reference: str, duplicate: bool = False) -> Response:
    page = page_of(request)
    record = next(
        (p for p in runtime_of(request).state.payments_of(who.user.username) if p.reference == reference),
        None,
    )
    return render(
        "bank/payment_result.html",
        page,
        status_code=200 if record else 404,
        menu=menu("bank", page, "bank.menu.payment"),
        user=who.user,
        record=record,
        duplicate=duplicate,
    )


@router.get("/payment/result/{reference}")
async def payment_result(request: Request, reference: str) -> Response:
    return _result_page(request, require_login(request, "bank"), reference)


def _matches(record: PaymentRecord, keyword: str) -> bool:
    haystack = (
        record.reference,
        record.payee_name,
        record.payee_account,
        record.payer_account,
        record.purpose,
    )
    return (
        not keyword
        or any(keyword in value for value in haystack)
        or keyword.replace(",", "") == record.amount
    )


@router.get("/records")
async def payment_records(request: Request) -> Response:
    who = require_login(request, "bank")
    page = page_of(request)
    keyword = query_value(request, "records.keyword", page.layout)
    records = [r for r in runtime_of(request).state.payments_of(who.user.username) if _matches(r, keyword)]
    return render(
        "bank/records.html",
        page,
        menu=menu("bank", page, "bank.menu.records"),
        user=who.user,
        keyword=keyword,
        records=list(reversed(records)),
    )
