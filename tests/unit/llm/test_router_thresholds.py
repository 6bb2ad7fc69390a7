"""Page features → complexity → tier, at and around each configured threshold."""

from __future__ import annotations

import pytest

from finrpa.config import Settings
from finrpa.llm import ComplexityLevel, PageFeatures, RouterThresholds, classify, page_signature
from finrpa.llm.router import complexity_signals

PLAIN = {
    "element_count": 120,
    "iframe_depth": 0,
    "has_shadow_dom": False,
    "form_field_count": 4,
    "dynamic_content": False,
}
DEFAULTS = RouterThresholds()


def _features(**change: object) -> PageFeatures:
    return PageFeatures.model_validate({**PLAIN, **change})


@pytest.mark.parametrize(
    ("change", "signal"),
    [
        ({"element_count": 501}, "element_count"),
        ({"iframe_depth": 2}, "iframe_depth"),
        ({"has_shadow_dom": True}, "shadow_dom"),
        ({"form_field_count": 20}, "form_fields"),
        ({"dynamic_content": True}, "dynamic_content"),
    ],
)
def test_each_threshold_alone_makes_a_page_moderate(change: dict[str, object], signal: str) -> None:
    features = _features(**change)
    assert complexity_signals(features, DEFAULTS) == (signal,)
    assert classify(features, DEFAULTS) is ComplexityLevel.MODERATE


@pytest.mark.parametrize(
    "change", [{"element_count": 500}, {"iframe_depth": 1}, {"form_field_count": 19}, {}]
)
def test_just_below_every_threshold_is_simple(change: dict[str, object]) -> None:
    assert classify(_features(**change), DEFAULTS) is ComplexityLevel.SIMPLE


def test_two_signals_make_a_page_complex() -> None:
    assert classify(_features(iframe_depth=2, has_shadow_dom=True), DEFAULTS) is ComplexityLevel.COMPLEX


def test_thresholds_come_from_settings() -> None:
    settings = Settings(llm_router_element_count=100, llm_router_form_fields=3, llm_router_complex_signals=3)
    thresholds = RouterThresholds.from_settings(settings)
    features = _features()  # 120 elements, 4 fields: two signals under these settings
    assert complexity_signals(features, thresholds) == ("element_count", "form_fields")
    assert classify(features, thresholds) is ComplexityLevel.MODERATE


def test_page_signature_folds_ids_but_not_pages() -> None:
    same = page_signature("https://bank.example/statement/20240301/detail?x=1", "交易明细")
    assert same == page_signature("https://BANK.example/statement/20250102/detail", "交易明细 ")
    assert same != page_signature("https://bank.example/payment/20240301/detail", "交易明细")
    assert same != page_signature("https://other.example/statement/20240301/detail", "交易明细")
