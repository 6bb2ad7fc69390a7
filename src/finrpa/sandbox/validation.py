"""Parsing what users type: dates, amounts, PRC resident ID numbers (GB 11643, ISO 7064 MOD 11-2)."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_AMOUNT = re.compile(r"^\d{1,13}(\.\d{1,2})?$")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def parse_date(value: str) -> date | None:
    """A YYYY-MM-DD date, or None when the text is not one."""
    if not _DATE.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def parse_amount(value: str) -> Decimal | None:
    """A positive amount with at most two decimals (thousands separators allowed), or None."""
    cleaned = value.replace(",", "").replace("，", "").strip()
    if not _AMOUNT.match(cleaned):
        return None
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        return None
    return amount if amount > 0 else None


def prc_id_check_digit(first17: str) -> str:
    """The 18th character of a PRC resident ID number for its first 17 digits."""
    total = sum(int(digit) * weight for digit, weight in zip(first17, _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11]


def is_valid_prc_id(number: str) -> bool:
    """True for an 18-character resident ID whose birth date is real and whose check digit matches."""
    number = number.strip().upper()
    if not re.fullmatch(r"\d{17}[\dX]", number):
        return False
    try:
        date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    return prc_id_check_digit(number[:17]) == number[17]


_DIGITS = "零壹贰叁肆伍陆柒捌玖"
_UNITS = ("", "拾", "佰", "仟")
_SECTIONS = ("", "万", "亿", "万亿")


def _section_words(section: int) -> str:
    words, zero = "", False
    for position in range(3, -1, -1):
        digit = section // 10**position % 10
        if digit == 0:
            zero = bool(words)
        else:
            words += ("零" if zero else "") + _DIGITS[digit] + _UNITS[position]
            zero = False
    return words


def amount_in_words(amount: Decimal) -> str:
    """人民币大写, e.g. 12345.60 → 壹万贰仟叁佰肆拾伍元陆角整 (as printed on Chinese payment slips)."""
    cents = int((amount * 100).to_integral_value())
    yuan, jiao, fen = cents // 100, cents // 10 % 10, cents % 10
    parts: list[str] = []
    section_index, need_zero = 0, False
    while yuan:
        section = yuan % 10_000
        if section:
            words = _section_words(section) + _SECTIONS[section_index]
            parts.insert(0, words + ("零" if need_zero else ""))
        need_zero = 0 < section < 1000 or (section == 0 and bool(parts))
        yuan //= 10_000
        section_index += 1
    integer = "".join(parts).rstrip("零")
    text = (integer + "元") if integer else ""
    if not jiao and not fen:
        return (text or "零元") + "整"
    if jiao:
        text += _DIGITS[jiao] + "角"
    elif integer:
        text += "零"
    return text + (_DIGITS[fen] + "分" if fen else "整")
