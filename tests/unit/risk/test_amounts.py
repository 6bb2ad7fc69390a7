"""Amounts as portals and form values write them: every written form is found and valued in CNY."""

from __future__ import annotations

from decimal import Decimal

import pytest

from finrpa.risk.amounts import amounts_in_values, find_amounts
from finrpa.risk.config import RiskConfig
from finrpa.risk.numerals import parse_chinese_numeral

CODES = tuple(RiskConfig().fx_to_cny)


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("付款金额 1,234.56 元", "1234.56", "CNY"),
        ("转账 1.2万元", "12000", "CNY"),
        ("授信额度 3亿元", "300000000", "CNY"),
        ("¥1,000,000.01", "1000000.01", "CNY"),
        ("￥88", "88", "CNY"),
        ("RMB 5,000,000", "5000000", "CNY"),
        ("CNY 1,200,000.00", "1200000.00", "CNY"),
        ("人民币壹佰伍拾万元整", "1500000", "CNY"),
        ("金额：一百五十万元", "1500000", "CNY"),
        ("玖拾玖万玖仟玖佰玖拾玖元玖角玖分", "999999.99", "CNY"),
        ("１５０万元", "1500000", "CNY"),
        ("１，５００，０００．００元", "1500000.00", "CNY"),
        ("USD 200,000", "200000", "USD"),
        ("200,000 USD", "200000", "USD"),
        ("US$1.2M", "1200000", "USD"),
        ("$250,000", "250000", "USD"),
        ("20万美元", "200000", "USD"),
        ("HKD 2,000,000.00", "2000000.00", "HKD"),
        ("€200,000", "200000", "EUR"),
        ("Amount: USD 1.5 million", "1500000", "USD"),
        ("金额：1.5M", "1500000", "CNY"),
    ],
)
def test_every_written_form_of_an_amount_is_found(text: str, value: str, currency: str) -> None:
    found = find_amounts(text, CODES)
    assert [(mention.value, mention.currency) for mention in found] == [(Decimal(value), currency)]


@pytest.mark.parametrize(
    "text",
    ["2024-01-03 至 2024-03-31", "账号 6222 0000 0000 0000", "共 1,234 条 第 1/62 页", "客服热线 95588", "3亿"],
)
def test_numbers_without_a_currency_or_money_label_are_not_amounts(text: str) -> None:
    assert find_amounts(text, CODES) == []


def test_a_number_in_a_field_named_like_money_counts_without_a_currency() -> None:
    found = amounts_in_values({"付款金额": "1500000", "用途": "货款 2024"}, CODES)
    assert [mention.value for mention in found] == [Decimal(1500000)]


def test_the_currency_field_of_a_form_applies_to_its_amount() -> None:
    found = amounts_in_values({"Amount": "200,000", "Currency": "USD"}, CODES)
    assert [(mention.value, mention.currency) for mention in found] == [(Decimal(200000), "USD")]


def test_a_securities_order_is_valued_as_quantity_times_price() -> None:
    found = amounts_in_values({"证券代码": "600000", "委托价格": "10.00", "委托数量": "600000"}, CODES)
    assert [mention.value for mention in found] == [Decimal("6000000.00")]


def test_a_money_label_before_the_amount_marks_it_labelled() -> None:
    found = find_amounts("余额 3,000,000.00 元；付款金额 80,000.00 元", CODES)
    assert {mention.value: mention.labelled for mention in found} == {
        Decimal("3000000.00"): False,
        Decimal("80000.00"): True,
    }


@pytest.mark.parametrize(
    ("numeral", "value"),
    [("壹佰伍拾万", 1_500_000), ("一亿五千万", 150_000_000), ("十五", 15), ("贰仟零伍", 2005), ("一万亿", 10**12)],
)
def test_chinese_numerals_parse(numeral: str, value: int) -> None:
    assert parse_chinese_numeral(numeral) == value
