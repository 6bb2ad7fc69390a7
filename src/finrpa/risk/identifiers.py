"""Card numbers, PRC resident ID numbers and bank account numbers in text, reported masked.

Card numbers: 13-19 digits, plain or grouped with spaces/dashes; passing the Luhn check raises confidence but
is not required (some UnionPay cards and all account numbers fail it). PRC IDs: 18 characters with a valid
birth date and the GB 11643 MOD 11-2 check character. Account numbers: digit runs after an account label.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from finrpa.risk.categories import Category
from finrpa.risk.numerals import normalize_digits

_PRC_ID = re.compile(r"(?<![0-9A-Za-z])\d{6}(\d{8})\d{3}[\dXx](?![0-9A-Za-z])")
_CARD = re.compile(
    r"(?<![\d.,])(?:\d{4}[ -]\d{4}[ -]\d{4}[ -]\d{4}(?:[ -]?\d{1,3})?|\d{4}[ -]\d{6}[ -]\d{4,5}|\d{13,19})(?![\d.,])"
)
_LABELLED = re.compile(
    r"(?P<label>卡号|银行卡|card(?:\s*(?:no\.?|number))?|账号|帐号|账户|帐户|account(?:\s*(?:no\.?|number))?|acct\.?)"
    r"[^\d\n]{0,8}?(?P<digits>\d[\d -]{6,32}\d)(?![\d])",
    re.IGNORECASE,
)
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


@dataclass(frozen=True, slots=True)
class IdentifierMention:
    category: Category
    masked: str
    confidence: float


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def prc_id_valid(candidate: str) -> bool:
    """GB 11643-1999: a real birth date and the MOD 11-2 check character."""
    body, check = candidate[:17], candidate[17].upper()
    if not body.isdigit() or not _birth_date_valid(body[6:14]):
        return False
    return _ID_CHECK[sum(int(char) * weight for char, weight in zip(body, _ID_WEIGHTS, strict=True)) % 11] == check


def _birth_date_valid(yyyymmdd: str) -> bool:
    try:
        born = date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:]))
    except ValueError:
        return False
    return 1900 <= born.year <= 2100


def mask(digits: str) -> str:
    return f"****{digits[-4:]}"


def find_identifiers(text: str) -> list[IdentifierMention]:
    """Every identifier in ``text`` (masked), each span classified once."""
    text = normalize_digits(text)
    if not any(char.isdigit() for char in text):
        return []
    taken: list[tuple[int, int]] = []
    found = list(_prc_ids(text, taken))
    found += _labelled_numbers(text, taken)
    found += _card_numbers(text, taken)
    return found


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)


def _prc_ids(text: str, taken: list[tuple[int, int]]) -> Iterator[IdentifierMention]:
    for match in _PRC_ID.finditer(text):
        if prc_id_valid(match.group()):
            taken.append(match.span())
            yield IdentifierMention(Category.PRC_ID, mask(match.group()), 0.95)


def _labelled_numbers(text: str, taken: list[tuple[int, int]]) -> Iterator[IdentifierMention]:
    for match in _LABELLED.finditer(text):
        digits = re.sub(r"[ -]", "", match["digits"])
        if not 8 <= len(digits) <= 25 or _overlaps(match.span("digits"), taken):
            continue
        taken.append(match.span("digits"))
        label = match["label"].lower()
        if label in ("卡号", "银行卡") or label.startswith("card"):
            yield IdentifierMention(Category.CARD_NUMBER, mask(digits), 0.9 if luhn_valid(digits) else 0.6)
        else:
            yield IdentifierMention(Category.ACCOUNT_NUMBER, mask(digits), 0.8)


def _card_numbers(text: str, taken: list[tuple[int, int]]) -> Iterator[IdentifierMention]:
    for match in _CARD.finditer(text):
        if _overlaps(match.span(), taken):
            continue
        digits = re.sub(r"[ -]", "", match.group())
        if 13 <= len(digits) <= 19:
            taken.append(match.span())
            yield IdentifierMention(Category.CARD_NUMBER, mask(digits), 0.9 if luhn_valid(digits) else 0.5)


_LONG_DIGITS = re.compile(r"\d(?:[ -]?\d){7,}[\dXx]?")


def redact_identifiers(text: str) -> str:
    """``text`` with every run of 8+ digits (cards, IDs, accounts, phone-like numbers) masked to its last 4."""
    return _LONG_DIGITS.sub(lambda match: mask(re.sub(r"[ -]", "", match.group())), normalize_digits(text))
