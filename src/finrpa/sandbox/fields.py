"""Form field names per layout and the order fields appear in: the redesign (v2) renames and reorders them.

The server reads a field by its current-layout name and falls back to the other layout's name, so a form
rendered just before a runtime layout switch still submits.
"""

from __future__ import annotations

FIELD_NAMES: dict[str, tuple[str, str]] = {
    "login.username": ("username", "loginId"),
    "login.password": ("password", "loginPwd"),
    "login.captcha": ("captcha", "verifyCode"),
    "login.totp": ("otp", "dynamicCode"),
    "stmt.account": ("acctNo", "accountNumber"),
    "stmt.start_date": ("startDate", "beginDt"),
    "stmt.end_date": ("endDate", "finishDt"),
    "pay.payer_account": ("payerAcct", "fromAccount"),
    "pay.payee_name": ("payeeName", "rcvAcctName"),
    "pay.payee_account": ("payeeAcct", "rcvAcctNo"),
    "pay.payee_bank": ("payeeBank", "rcvBankName"),
    "pay.amount": ("amount", "trfAmt"),
    "pay.purpose": ("purpose", "postscript"),
    "records.keyword": ("keyword", "q"),
    "ins.applicant_name": ("applicantName", "holderName"),
    "ins.id_type": ("idType", "certType"),
    "ins.id_number": ("idNumber", "certNo"),
    "ins.product": ("productCode", "planCode"),
    "ins.start_date": ("effectiveDate", "coverFrom"),
    "ins.end_date": ("expiryDate", "coverTo"),
    "ins.beneficiaries": ("beneficiaries", "beneList"),
    "ins.policy_no": ("policyNo", "policyNumber"),
    "ins.accident_date": ("accidentDate", "lossDate"),
    "ins.cause": ("cause", "lossCause"),
    "ins.claim_amount": ("claimAmount", "requestAmt"),
    "ins.description": ("description", "lossDetail"),
    "ins.search.query": ("q", "keyword"),
    "sec.report_type": ("reportType", "filingType"),
    "sec.period": ("period", "filingPeriod"),
    "sec.attachment": ("attachment", "uploadFile"),
    "sec.remarks": ("remarks", "notes"),
    "sec.start_date": ("startDate", "fromDate"),
    "sec.end_date": ("endDate", "toDate"),
    "sec.code_filter": ("code", "stockCode"),
    "sec.order.code": ("code", "stockCode"),
    "sec.order.side": ("side", "bsFlag"),
    "sec.order.price": ("price", "entrustPrice"),
    "sec.order.quantity": ("quantity", "entrustAmount"),
    "form_token": ("formToken", "txnToken"),
}

FORM_ORDER: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stmt": (
        ("stmt.account", "stmt.start_date", "stmt.end_date"),
        ("stmt.start_date", "stmt.end_date", "stmt.account"),
    ),
    "pay": (
        (
            "pay.payer_account",
            "pay.payee_name",
            "pay.payee_account",
            "pay.payee_bank",
            "pay.amount",
            "pay.purpose",
        ),
        (
            "pay.payer_account",
            "pay.amount",
            "pay.payee_account",
            "pay.payee_name",
            "pay.payee_bank",
            "pay.purpose",
        ),
    ),
    "ins.apply": (
        (
            "ins.applicant_name",
            "ins.id_type",
            "ins.id_number",
            "ins.product",
            "ins.start_date",
            "ins.end_date",
        ),
        (
            "ins.product",
            "ins.start_date",
            "ins.end_date",
            "ins.applicant_name",
            "ins.id_type",
            "ins.id_number",
        ),
    ),
    "ins.claim": (
        ("ins.policy_no", "ins.accident_date", "ins.cause", "ins.claim_amount", "ins.description"),
        ("ins.policy_no", "ins.claim_amount", "ins.accident_date", "ins.cause", "ins.description"),
    ),
    "sec.report": (
        ("sec.report_type", "sec.period", "sec.attachment", "sec.remarks"),
        ("sec.period", "sec.report_type", "sec.remarks", "sec.attachment"),
    ),
    "sec.trades": (
        ("sec.start_date", "sec.end_date", "sec.code_filter"),
        ("sec.code_filter", "sec.start_date", "sec.end_date"),
    ),
    "sec.order": (
        ("sec.order.code", "sec.order.side", "sec.order.price", "sec.order.quantity"),
        ("sec.order.side", "sec.order.code", "sec.order.quantity", "sec.order.price"),
    ),
}


def field_name(key: str, layout: str) -> str:
    """The HTML name of field `key` in `layout`."""
    v1, v2 = FIELD_NAMES[key]
    return v2 if layout == "v2" else v1


def other_field_name(key: str, layout: str) -> str:
    """The name the field has in the other layout (accepted too, see the module docstring)."""
    return field_name(key, "v1" if layout == "v2" else "v2")


def form_order(form: str, layout: str) -> tuple[str, ...]:
    """The field keys of `form` in the order `layout` shows them."""
    v1, v2 = FORM_ORDER[form]
    return v2 if layout == "v2" else v1
