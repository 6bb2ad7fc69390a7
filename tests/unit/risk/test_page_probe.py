"""The page probe: one regex pass that tells whether a page holds a talk-down phrase, a money label or a
full-width digit — exactly what the separate checks answer, also when one word hides inside another."""

from __future__ import annotations

import pytest

from finrpa.risk.amounts import _unmodelled
from finrpa.risk.categories import Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.library import DomainMatchers, ProbeResult, library_entries

MATCHERS = DomainMatchers.build(library_entries("bank", RiskConfig()))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02 转账汇款 1,000.00 元 余额 5,000.00 元", ProbeResult(False, False, False)),
        ("此操作为测试，风险等级为低", ProbeResult(True, False, False)),
        ("交易金额 １５０万", ProbeResult(False, True, True)),
        ("Total: 1,500,000", ProbeResult(False, True, False)),
        ("AMOUNT due", ProbeResult(False, True, False)),
        ("转账 ５ 笔", ProbeResult(False, False, True)),
        # The talk-down phrase is matched first; the money label inside it must still be seen.
        ("风险等级为低金额", ProbeResult(True, True, False)),
        ("无需审批", ProbeResult(True, False, False)),
    ],
)
def test_probe_answers_what_the_separate_checks_answer(text: str, expected: ProbeResult) -> None:
    found = MATCHERS.probe.find(text)
    assert found == expected
    assert found.injection == bool(MATCHERS.injection.find(text))
    assert found.unmodelled == _unmodelled(text)


def test_a_word_hidden_inside_a_longer_match_of_another_kind_is_found() -> None:
    config = RiskConfig.model_validate(
        {"extra_keywords": [{"term": "本金额外说明", "level": "low", "category": Category.INJECTION.value}]}
    )
    matchers = DomainMatchers.build(library_entries("bank", config))
    # "本金额外说明" is matched as a talk-down phrase and consumes "金额", which starts inside it.
    assert matchers.probe.find("请阅读本金额外说明") == ProbeResult(True, True, False)
    assert matchers.probe.find("请阅读本金") == ProbeResult(False, True, False)
