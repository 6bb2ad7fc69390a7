"""Card numbers, PRC ID numbers and account numbers are recognised and never reported in full."""

from __future__ import annotations

from finrpa.risk.categories import Category
from finrpa.risk.identifiers import find_identifiers, luhn_valid, prc_id_valid, redact_identifiers

VISA_TEST = "4111 1111 1111 1111"  # the well-known test number: passes Luhn
UNIONPAY_LIKE = "6222 0000 0000 0000"  # fails Luhn, like some UnionPay cards and every account number
GB_EXAMPLE_ID = "11010519491231002X"  # the example in GB 11643


def test_luhn_and_mod_11_2_checks() -> None:
    assert luhn_valid(VISA_TEST.replace(" ", ""))
    assert not luhn_valid(UNIONPAY_LIKE.replace(" ", ""))
    assert prc_id_valid(GB_EXAMPLE_ID)
    assert not prc_id_valid("110105194912310021")  # wrong check character
    assert not prc_id_valid("11010519491331002X")  # month 13


def test_a_card_number_failing_luhn_is_still_a_card_number_with_lower_confidence() -> None:
    (passing,) = find_identifiers(f"卡号 {VISA_TEST}")
    (failing,) = find_identifiers(UNIONPAY_LIKE)
    assert passing.category is failing.category is Category.CARD_NUMBER
    assert failing.confidence < passing.confidence


def test_hits_are_masked_to_the_last_four_digits() -> None:
    found = find_identifiers(f"证件号码 {GB_EXAMPLE_ID}，卡号 {VISA_TEST}")
    assert {(mention.category, mention.masked) for mention in found} == {
        (Category.PRC_ID, "****002X"),
        (Category.CARD_NUMBER, "****1111"),
    }


def test_a_labelled_digit_run_is_an_account_number() -> None:
    (mention,) = find_identifiers("收款账号：31050161393600000123")
    assert mention.category is Category.ACCOUNT_NUMBER


def test_dates_and_phone_numbers_are_not_cards() -> None:
    assert find_identifiers("2024-01-01 2024-03-31 客服 95588 手机 13800000000") == []


def test_redaction_keeps_only_the_last_four_digits() -> None:
    redacted = redact_identifiers(f"向 {UNIONPAY_LIKE} 转账，身份证 {GB_EXAMPLE_ID}")
    assert "6222" not in redacted and "110105" not in redacted
    assert "****0000" in redacted
