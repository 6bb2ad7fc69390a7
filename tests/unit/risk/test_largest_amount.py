"""The amount a confirm step decides on in a long page, found in bulk, is the one the exact scan gives.

``largest_amount`` lists the Arabic amounts beside a currency with regex passes and values them column-wise (one
pass of numbers only when the page probe says every amount is a plain number before 元, and another for the other
currencies — only the words the probe saw — when every 元 amount is); labelled amounts are read
exactly around each money label; pages with a Chinese numeral before a currency go to the exact scan. Either way
its answer must equal the largest labelled (else largest) amount of :func:`find_amounts`, first of equals, with
the same text — also when the caller passes what the page probe read.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal

import pytest

from finrpa.risk.amounts import AmountMention, PriceFn, find_amounts, largest_amount
from finrpa.risk.config import RiskConfig
from finrpa.risk.library import DomainMatchers, library_entries

CONFIG = RiskConfig()
CODES = tuple(CONFIG.fx_to_cny)
PROBE = DomainMatchers.build(library_entries("bank", CONFIG), CODES).probe


def no_jpy(amount: Decimal, currency: str) -> Decimal | None:
    """Pricing without a JPY rate: amounts in yen are left out."""
    return None if currency == "JPY" else CONFIG.to_cny(amount, currency)


def reference(text: str, to_cny: PriceFn) -> tuple[AmountMention, Decimal] | None:
    priced = [
        (mention, cny)
        for mention in find_amounts(text, CODES)
        if (cny := to_cny(mention.value, mention.currency)) is not None
    ]
    labelled = [pair for pair in priced if pair[0].labelled]
    return max(labelled or priced, key=lambda pair: pair[1], default=None)


def number(rnd: random.Random) -> str:
    value = rnd.choice([rnd.randint(1, 999), rnd.randint(1_000, 9_999_999), rnd.randint(10**7, 10**10)])
    written = rnd.choice([f"{value:,}", str(value), f"{value:,}.{rnd.randint(0, 99):02d}", f"{value}.5"])
    return written


AMOUNT_FORMS: list[Callable[[random.Random], str]] = [
    lambda rnd: f"{number(rnd)} 元",
    lambda rnd: f"{number(rnd)}元",
    lambda rnd: f"¥{number(rnd)}",
    lambda rnd: f"￥ {number(rnd)}",
    lambda rnd: f"USD {number(rnd)}",
    lambda rnd: f"{number(rnd)} usd",
    lambda rnd: f"{number(rnd)} HKD",
    lambda rnd: f"US${rnd.randint(1, 9)}.{rnd.randint(1, 9)}M",
    lambda rnd: f"${number(rnd)}",
    lambda rnd: f"HK${number(rnd)}",
    lambda rnd: f"€{number(rnd)}",
    lambda rnd: f"{rnd.randint(1, 999)}万元",
    lambda rnd: f"{rnd.randint(1, 9)}.{rnd.randint(1, 9)}亿 元",
    lambda rnd: f"{rnd.randint(1, 999)}万美元",
    lambda rnd: f"{number(rnd)} dollars",
    lambda rnd: f"{rnd.randint(1, 999)} million USD",
    lambda rnd: f"JPY {number(rnd)}",
    lambda rnd: f"{number(rnd)}日元",
    lambda rnd: f"GBP{number(rnd)}",
    lambda rnd: f"-{number(rnd)} 元",
    lambda rnd: f"12:{rnd.randint(10, 59)}元",
    lambda rnd: "1,23 元",
    lambda rnd: f"{rnd.randint(1, 9)}. 元",
    lambda rnd: f".{rnd.randint(1, 9)}元",
    lambda rnd: f"¥{number(rnd)}元",
    lambda rnd: f"RMB {number(rnd)} 元",
    lambda rnd: f"{rnd.randint(1, 99)}¥{number(rnd)}",
    lambda rnd: "１５０万元",
    lambda rnd: "１，５００．００元",
    lambda rnd: f"{number(rnd)}$",
    lambda rnd: f"2024/{rnd.randint(1, 12)}元",
]
RARE_FORMS: list[Callable[[random.Random], str]] = [
    lambda rnd: "人民币壹佰伍拾万元整",
    lambda rnd: "一百元",
    lambda rnd: f"合计 {number(rnd)}",
    lambda rnd: f"付款金额：{number(rnd)} 元",
    lambda rnd: f"Total: {number(rnd)}",
    lambda rnd: f"summary {number(rnd)} 元",
    lambda rnd: f"AMOUNT {number(rnd)} USD",
]
PLAIN_YUAN_FORMS: list[Callable[[random.Random], str]] = [
    lambda rnd: f"{number(rnd)} 元",
    lambda rnd: f"{number(rnd)}元",
    lambda rnd: f"{number(rnd)}  元",
    lambda rnd: f"{number(rnd)}\n元",
    lambda rnd: f"-{number(rnd)} 元",
    lambda rnd: f"12:{rnd.randint(10, 59)}元",
    lambda rnd: "1,23 元",
    lambda rnd: f"0{rnd.randint(1, 999)} 元",
    lambda rnd: f"{rnd.randint(1, 9)}. 元",
    lambda rnd: f".{rnd.randint(1, 9)}元",
    lambda rnd: f"2024/{rnd.randint(1, 12)}元",
    lambda rnd: "单位：元",
    lambda rnd: f"9{number(rnd)} 元",
]
OTHER_CURRENCY_FORMS: list[Callable[[random.Random], str]] = [
    lambda rnd: f"{number(rnd)} USD",
    lambda rnd: f"USD {number(rnd)}",
    lambda rnd: f"{number(rnd)} USD 余额 {number(rnd)} 元",
    lambda rnd: f"USD {number(rnd)} 元",
    lambda rnd: f"¥{number(rnd)}",
    lambda rnd: f"￥ {number(rnd)}元",
    lambda rnd: f"{number(rnd)} hkd",
    lambda rnd: f"$ {number(rnd)}",
    lambda rnd: f"US${number(rnd)}",
    lambda rnd: f"RMB {number(rnd)} 元",
    lambda rnd: f"{number(rnd)}RMB元",
    lambda rnd: f"{number(rnd)} dollars",
    lambda rnd: f"JPY {number(rnd)}",
    lambda rnd: f"{rnd.randint(1, 999)} million USD",
    lambda rnd: f"{rnd.randint(1, 99)}k GBP",
    lambda rnd: f"{number(rnd)} 块",
    lambda rnd: f"人民币{number(rnd)}",
    lambda rnd: f"-{number(rnd)} USD",
    lambda rnd: f"CNY:{number(rnd)}",
    lambda rnd: f"{number(rnd)}-{number(rnd)} EUR",
]
LABEL_FORMS: list[Callable[[random.Random], str]] = [
    lambda rnd: "交易日期 交易类型 金额 余额",
    lambda rnd: f"交易金额：{number(rnd)} 元",
    lambda rnd: f"金额 {number(rnd)}",
    lambda rnd: f"总金额（人民币）：{number(rnd)} 元",
    lambda rnd: f"金额度 {number(rnd)}",
    lambda rnd: f"金额 {rnd.randint(1, 9)} {number(rnd)} 元",
    lambda rnd: f"合计\n{number(rnd)} 元",
    lambda rnd: f"Total: USD {number(rnd)}",
    lambda rnd: f"amount {number(rnd)} JPY",
    lambda rnd: f"应付 {rnd.randint(1, 999)}万元",
    lambda rnd: f"实付{number(rnd)}元，另{number(rnd)}元",
]
NOISE = [
    "2024-03-12 ",
    "转账汇款 ",
    "余额 ",
    "流水号 123456789012 ",
    "对方户名 某某公司 ",
    "\n",
    "page 3 of 9 ",
    "Ref 88-1234 ",
    "交易时间 10:30 ",
]


PAGE_KINDS: dict[str, Callable[[random.Random], list[Callable[[random.Random], str]]]] = {
    "common": lambda rnd: AMOUNT_FORMS,
    "rare": lambda rnd: AMOUNT_FORMS + RARE_FORMS if rnd.random() < 0.2 else AMOUNT_FORMS,
    "plain_yuan": lambda rnd: PLAIN_YUAN_FORMS,
    "yuan_and_others": lambda rnd: PLAIN_YUAN_FORMS + OTHER_CURRENCY_FORMS,
    "labels": lambda rnd: PLAIN_YUAN_FORMS + LABEL_FORMS if rnd.random() < 0.3 else PLAIN_YUAN_FORMS + AMOUNT_FORMS,
}


def page(rnd: random.Random, kind: str) -> str:
    parts = []
    for _ in range(rnd.randint(1, 40)):
        parts.append(rnd.choice(NOISE))
        parts.append(rnd.choice(PAGE_KINDS[kind](rnd))(rnd) + rnd.choice([" ", "\n", "，", " | "]))
    return "".join(parts)


@pytest.mark.parametrize("kind", list(PAGE_KINDS))
def test_bulk_answer_equals_the_exact_scan_on_generated_pages(kind: str) -> None:
    rnd = random.Random(f"largest-{kind}")
    plain_seen = apart_seen = written_seen = labels_seen = 0
    for _ in range(300):
        text = page(rnd, kind)
        probe = PROBE.find(text)
        plain_seen += probe.plain_yuan
        apart_seen += probe.yuan_plain and not probe.plain_yuan
        written_seen += probe.currencies is not None
        labels_seen += probe.labels is not None and bool(probe.labels)
        for to_cny in (CONFIG.to_cny, no_jpy):
            expected = reference(text, to_cny)
            assert largest_amount(text, CODES, to_cny) == expected, text
            probed = largest_amount(
                text,
                CODES,
                to_cny,
                unmodelled=probe.unmodelled,
                full_width=probe.full_width,
                plain_yuan=probe.plain_yuan,
                yuan_plain=probe.yuan_plain,
                currencies=probe.currencies,
                labels=probe.labels,
            )
            assert probed == expected, text
    if kind == "plain_yuan":
        assert plain_seen == 300  # every page of this kind took the one-pass path
    if kind == "labels":
        assert labels_seen > 50  # the labels' windows from where the probe saw them
    if kind == "yuan_and_others":
        assert apart_seen > 150  # 元 amounts in one pass, the other currencies in another
        assert written_seen == apart_seen  # which currency words, as written: the passes look for only those


@pytest.mark.parametrize(
    ("text", "expected_text", "expected_cny"),
    [
        ("01-02 转账 1,000.00 元\n01-03 汇款 2,500,000.00 元\n余额 300.00 元", "2,500,000.00 元", "2500000.00"),
        ("USD 200,000 then 1,000,000 元", "USD 200,000", "1440000"),
        ("150万元 and 1,500,000元", "150万元", "1500000"),  # equal: the first one
        ("-9,000,000.00 元 debit, 10 元 fee", "10 元", "10"),  # after "-" no amount (as find_amounts reads it)
        ("金额 10 元。另有一笔往来款项，见附件：9,000,000 元", "金额 10", "10"),  # a labelled amount is preferred
        ("JPY 99,999,999 or 5 元", "5 元", "5"),
        ("5,000RMB元 and 1,000 元", "5,000RMB", "5000"),  # the B before 元 ends RMB: it is not a scale of 元
        ("2,000 USD 余额 9,000 元", "2,000 USD", "14400"),
        ("no money here 2024-01-02", None, None),
    ],
)
def test_largest_amount_examples(text: str, expected_text: str | None, expected_cny: str | None) -> None:
    found = largest_amount(text, CODES, no_jpy)
    assert found == reference(text, no_jpy)
    if expected_text is None:
        assert found is None
    else:
        assert found is not None
        assert (found[0].text, found[1]) == (expected_text, Decimal(expected_cny or "0"))
