"""The labelled risk corpus (tests/data/risk_corpus.jsonl): the safety property compliance relies on.

Precision and recall per level are printed by bench/bench_risk.py; here only what must never happen is asserted.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from finrpa.risk.levels import RiskLevel
from finrpa.risk.schemas import RiskInput
from finrpa.risk.service import RiskAssessor

CORPUS = Path(__file__).parents[2] / "data" / "risk_corpus.jsonl"


@pytest.fixture(scope="module")
def outcomes() -> list[tuple[dict[str, object], RiskLevel]]:
    assessor = RiskAssessor()
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(case, assessor.assess_stage1(RiskInput.model_validate(case)).final_level) for case in cases]


def test_the_corpus_is_large_and_covers_every_level(outcomes: list[tuple[dict[str, object], RiskLevel]]) -> None:
    labels = Counter(str(case["expected_level"]) for case, _ in outcomes)
    assert len(outcomes) >= 200
    assert all(labels[level.value] >= 20 for level in RiskLevel)


def test_no_critical_write_is_classified_below_high(outcomes: list[tuple[dict[str, object], RiskLevel]]) -> None:
    missed = [
        f"{case['id']} ({case['note']}): {decided.value}"
        for case, decided in outcomes
        if case["expected_level"] == "critical" and case["effect"] != "read" and decided.rank < RiskLevel.HIGH.rank
    ]
    assert missed == []


def test_no_high_or_critical_action_is_classified_low(outcomes: list[tuple[dict[str, object], RiskLevel]]) -> None:
    missed = [
        f"{case['id']} ({case['note']})"
        for case, decided in outcomes
        if case["expected_level"] in ("high", "critical") and decided is RiskLevel.LOW
    ]
    assert missed == []
