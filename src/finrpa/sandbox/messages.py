"""Validation and status messages in Chinese and English. They say what is wrong and what to do."""

from __future__ import annotations

from finrpa.sandbox.wording import Lang

MESSAGES: dict[str, tuple[str, str]] = {
    "required": ("{field}不能为空，请填写。", "{field} is required; please fill it in."),
    "bad_login": (
        "用户名或密码错误，您还可以尝试 {left} 次。",
        "Wrong username or password; {left} attempts left.",
    ),
    "locked": (
        "密码连续错误 5 次，账户已锁定，请联系管理员解锁。",
        "Five wrong passwords in a row: the account is locked. Ask the administrator to unlock it.",
    ),
    "bad_captcha": ("验证码错误，请重新输入。", "The verification code is wrong; enter the new one."),
    "bad_totp": (
        "动态口令错误或已过期，请重新输入。",
        "The one-time password is wrong or expired; enter a new one.",
    ),
    "expired": ("会话已超时，请重新登录。", "Your session timed out; please sign in again."),
    "login_first": ("请先登录。", "Please sign in first."),
    "bad_date": ("{field}格式不正确，请按 YYYY-MM-DD 填写。", "{field} must be a date written YYYY-MM-DD."),
    "date_order": ("开始日期不能晚于结束日期。", "The start date must not be after the end date."),
    "date_future": ("{field}不能晚于今天。", "{field} must not be later than today."),
    "date_range": (
        "查询区间不能超过一年，请缩短日期范围。",
        "The range may span one year at most; shorten it.",
    ),
    "unknown_account": ("请选择您名下的账号。", "Choose one of your own accounts."),
    "bad_amount": (
        "金额格式不正确，请输入最多两位小数的正数。",
        "Enter the amount as a positive number, at most 2 decimals.",
    ),
    "amount_limit": ("单笔金额不能超过 {limit} 元。", "A single payment may not exceed {limit} CNY."),
    "amount_balance": (
        "付款账户可用余额不足。",
        "The paying account does not have enough available balance.",
    ),
    "bad_payee_account": ("收款账号应为 8 至 32 位数字。", "The payee account must be 8 to 32 digits."),
    "too_long": ("{field}不能超过 {limit} 个字符。", "{field} may be at most {limit} characters."),
    "bad_choice": ("请从列表中选择{field}。", "Choose {field} from the list."),
    "bad_id": (
        "证件号码校验失败，请核对身份证号码。",
        "The ID number fails its check digit; check the number.",
    ),
    "end_before_start": ("终止日期必须晚于生效日期。", "The expiry date must be after the effective date."),
    "bene_required": ("请至少填写一位受益人。", "Add at least one beneficiary."),
    "bene_share": ("受益比例合计必须为 100%。", "The beneficiaries' shares must add up to 100%."),
    "bene_incomplete": (
        "受益人信息不完整，请填写姓名、关系和比例。",
        "Each beneficiary needs a name, relation and share.",
    ),
    "unknown_policy": ("未找到该保单，请核对保单号。", "No policy has that number; check it."),
    "policy_not_in_force": (
        "出险日期不在保单保险期间内。",
        "The date of loss is outside the policy's cover period.",
    ),
    "file_required": ("请上传附件。", "Attach the report file."),
    "file_too_big": ("附件不能超过 10MB。", "The attachment may be 10 MB at most."),
    "unknown_security": (
        "证券代码不存在，请输入 6 位有效代码。",
        "Unknown security code; enter a valid 6-digit code.",
    ),
    "bad_price": (
        "委托价格格式不正确。",
        "Enter the limit price as a positive number with at most 2 decimals.",
    ),
    "price_band": (
        "委托价格超出涨跌停范围（{low} - {high}）。",
        "The price is outside the daily limit band ({low} - {high}).",
    ),
    "bad_quantity": ("委托数量必须为 100 的整数倍。", "The quantity must be a positive multiple of 100."),
    "duplicate": ("该业务已提交，请勿重复提交。", "This was already submitted; do not submit it twice."),
    "stale_form": (
        "页面已失效，请核对信息后重新提交。",
        "This form has expired; check the details and submit again.",
    ),
    "not_found": ("未找到该记录。", "No such record; search the records list instead."),
    "fix_errors": ("请修正以下错误后重新提交。", "Please correct the errors below and submit again."),
}


def message(key: str, lang: Lang, **values: object) -> str:
    """The message `key` in `lang` with `values` filled in."""
    zh, en = MESSAGES[key]
    return (zh if lang == "zh" else en).format(**values)
