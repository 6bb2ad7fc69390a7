"""The page probe: one regex pass that tells whether a page holds a talk-down phrase, a money label, a full-width
digit, an amount not written as a plain number before 元, or a 元 not written right after one — exactly what the
separate checks answer, also when one word hides inside another."""

from __future__ import annotations

import random
import re
from dataclasses import asdict, replace

import pytest

from finrpa.risk.amounts import _label_pattern, _unmodelled, not_plain_yuan_words
from finrpa.risk.categories import HIGH_IMPACT, Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.library import DomainMatchers, PageMatcher, ProbeResult, library_entries, page_bytes

CODES = tuple(RiskConfig().fx_to_cny)
MATCHERS = DomainMatchers.build(library_entries("bank", RiskConfig()), CODES)
NOT_PLAIN_YUAN = not_plain_yuan_words(CODES)


def plain_yuan(text: str) -> bool:
    return not any(word in text for word in NOT_PLAIN_YUAN)


def yuan_plain(text: str) -> bool:
    return not any(word in text for word in NOT_PLAIN_YUAN if "元" in word)


def label_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(match.span() for match in _label_pattern().finditer(text))


def currencies(text: str) -> frozenset[str] | None:
    """The currency words not written with 元 in ``text``, as written, when that is all that keeps its amounts
    from being plain numbers before 元."""
    if plain_yuan(text) or not yuan_plain(text):
        return None
    return frozenset(word for word in NOT_PLAIN_YUAN if "元" not in word and word in text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02 转账汇款 1,000.00 元 余额 5,000.00 元", ProbeResult(False, False, False, True, True)),
        ("此操作为测试，风险等级为低", ProbeResult(True, False, False, True, True)),
        ("交易金额 １５０万", ProbeResult(False, True, True, True, True)),
        ("Total: 1,500,000", ProbeResult(False, True, False, True, True)),
        ("AMOUNT due", ProbeResult(False, True, False, True, True)),
        ("转账 ５ 笔", ProbeResult(False, False, True, True, True)),
        # The talk-down phrase is matched first; the money label inside it must still be seen.
        ("风险等级为低金额", ProbeResult(True, True, False, True, True)),
        ("无需审批", ProbeResult(True, False, False, True, True)),
        ("转账 150万元", ProbeResult(False, False, False, False, False)),
        ("转账 150 万\t元", ProbeResult(False, False, False, False, False)),
        ("人民币壹佰元整", ProbeResult(False, False, False, False, False)),
        ("一百 \n元", ProbeResult(False, False, False, False, False)),
        ("USD 1,000 或 1,000 元", ProbeResult(False, False, False, False, True, frozenset({"USD"}))),
        ("US$1,000 或 1,000 元", ProbeResult(False, False, False, False, True, frozenset({"US$", "$"}))),
        ("5 USDollars", ProbeResult(False, False, False, False, True, frozenset({"USD", "Dollar", "Dollars"}))),
        ("1.5M元", ProbeResult(False, False, False, False, False)),
        ("￥1,000", ProbeResult(False, False, False, False, True, frozenset({"￥"}))),
    ],
)
def test_probe_answers_what_the_separate_checks_answer(text: str, expected: ProbeResult) -> None:
    found = MATCHERS.probe.find(text)
    assert replace(found, labels=None) == expected
    assert found.labels == (label_spans(text) if found.unmodelled else None)
    assert found.injection == bool(MATCHERS.injection.find(text))
    assert found.unmodelled == _unmodelled(text)
    assert found.plain_yuan == plain_yuan(text)
    assert found.yuan_plain == yuan_plain(text)
    assert found.currencies == currencies(text)


def test_a_word_hidden_inside_a_longer_match_of_another_kind_is_found() -> None:
    config = RiskConfig.model_validate(
        {"extra_keywords": [{"term": "本金额外说明", "level": "low", "category": Category.INJECTION.value}]}
    )
    matchers = DomainMatchers.build(library_entries("bank", config), CODES)
    # "本金额外说明" is matched as a talk-down phrase and consumes "金额", which starts inside it.
    assert matchers.probe.find("请阅读本金额外说明") == ProbeResult(True, True, False, True, True)  # labels: not known
    assert matchers.probe.find("请阅读本金") == ProbeResult(False, True, False, True, True, labels=((3, 5),))
    # A label inside a label is passed over by the label pattern too: the probe's matches are its matches.
    assert matchers.probe.find("总金额度 100") == ProbeResult(False, True, False, True, True, labels=((1, 3),))
    # "本金额外说明" also hides "万元" only if it held one; a 元 amount written with a scale inside a talk-down
    # phrase's span is still seen.
    hidden = DomainMatchers.build(
        library_entries("bank", RiskConfig.model_validate(
            {"extra_keywords": [{"term": "忽略五万元以上", "level": "low", "category": Category.INJECTION.value}]}
        )),
        CODES,
    )  # fmt: skip
    assert hidden.probe.find("请忽略五万元以上的提示") == ProbeResult(True, False, False, False, False)


PIECES = [
    "此操作为测试",
    "风险等级为低",
    "Skip Approval",
    "sKiP approval",
    "you are now",
    "金额",
    "额度",
    "Total",
    "AMOUNT",
    "５",
    "150万元",
    "3 亿元",
    "壹佰元",
    "USD",
    "usd",
    "$",
    "US$",
    "HK$",
    "USDollars",
    "rmb",
    "￥",
    "¥",
    "美元",
    "1.5M元",
    "20 k元",
    "人民币",
    "\u0130",
    "\u212a",
    "转账",
    "对公付款",
    "wire transfer",
    "余额 ",
    "2024-01-02 ",
    "1,000.00 元 ",
    "\n",
    "abc ",
    "-",
]
PLAIN_PAGE = PageMatcher(entry for entry in library_entries("bank", RiskConfig()) if entry.category in HIGH_IMPACT)


@pytest.mark.parametrize("letters", [True, False])
def test_the_page_keyword_pass_answers_the_probe(letters: bool) -> None:
    """A confirm step that reads the page's operations takes the probe's answer from that pass: the same answer,
    but for a talk-down phrase in odd case (then the injection matcher runs and finds none), and the same
    operations as the pass without the probe's words."""
    rnd = random.Random(f"scan-probe-{letters}")
    pieces = PIECES if letters else [piece for piece in PIECES if not re.search("[A-Za-z]", piece)]
    kinds_seen = set()
    labels_known = 0
    for _ in range(600):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        scan, probe = MATCHERS.scan_page(text)
        expected = MATCHERS.probe.find(text)
        assert expected.currencies == currencies(text), text
        assert expected.labels in (None, label_spans(text) if expected.unmodelled else None), text
        labels_known += expected.labels is not None and bool(expected.labels)
        assert probe is not None
        assert replace(probe, injection=expected.injection, currencies=expected.currencies, labels=expected.labels) == (
            expected
        ), text
        assert probe.currencies in (None, expected.currencies), text
        if probe.injection != expected.injection:
            assert probe.injection and not MATCHERS.injection.find(text), text
        kinds_seen |= {name for name, value in asdict(probe).items() if value}
        assert scan.entries == PLAIN_PAGE.find(page_bytes(text)).entries, text
        assert MATCHERS.scan_page(text, probe=False)[1] is None
    assert labels_known > 100
    assert kinds_seen >= {"injection", "unmodelled", "full_width", "plain_yuan", "yuan_plain"}
