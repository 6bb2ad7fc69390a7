"""What users type: dates, amounts, PRC ID check digits, and amounts in Chinese capitals."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from finrpa.sandbox.validation import amount_in_words, is_valid_prc_id, parse_amount, parse_date


def test_dates_must_be_real_and_written_yyyy_mm_dd() -> None:
    assert parse_date("2024-02-29") == date(2024, 2, 29)
    for text in ("2023-02-29", "2024/01/01", "20240101", "2024-1-1", ""):
        assert parse_date(text) is None


@pytest.mark.parametrize(
    ("text", "amount"), [("1,234.50", Decimal("1234.50")), ("0.01", Decimal("0.01")), ("7", 7)]
)
def test_amounts_accept_separators_and_two_decimals(text: str, amount: Decimal) -> None:
    assert parse_amount(text) == amount


@pytest.mark.parametrize("text", ["0", "-5", "1.234", "abc", "1e5", ""])
def test_amounts_refuse_zero_negative_and_malformed(text: str) -> None:
    assert parse_amount(text) is None


def test_prc_id_check_digit_and_birth_date() -> None:
    assert is_valid_prc_id("11010519491231002X")
    assert is_valid_prc_id("11010519491231002x")
    assert not is_valid_prc_id("110105194912310021")  # wrong check digit
    assert not is_valid_prc_id("110105194902300021")  # 30 February
    assert not is_valid_prc_id("11010519491231002")  # 17 characters


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        ("12345.60", "壹万贰仟叁佰肆拾伍元陆角整"),
        ("100000000", "壹亿元整"),
        ("1000001", "壹佰万零壹元整"),
        ("10010.05", "壹万零壹拾元零伍分"),
        ("0.5", "伍角整"),
        ("20300000.01", "贰仟零叁拾万元零壹分"),
    ],
)
def test_amount_in_words_follows_payment_slip_rules(amount: str, words: str) -> None:
    assert amount_in_words(Decimal(amount)) == words
