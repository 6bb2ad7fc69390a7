"""The redesign's labels and field names, and the documentation that publishes them."""

from __future__ import annotations

from pathlib import Path

from finrpa.sandbox.fields import FIELD_NAMES, FORM_ORDER
from finrpa.sandbox.wording import WORDING

DOCS = Path(__file__).resolve().parents[3] / "docs" / "sandbox.md"


def test_every_form_field_has_a_label_and_distinct_v1_v2_names() -> None:
    for key, (v1, v2) in FIELD_NAMES.items():
        assert v1 != v2, key
        assert key == "form_token" or key in WORDING, key


def test_v2_reorders_every_form_without_losing_a_field() -> None:
    for form, (v1, v2) in FORM_ORDER.items():
        assert sorted(v1) == sorted(v2) and v1 != v2, form


def test_docs_publish_every_v1_v2_label_pair() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for key, wording in WORDING.items():
        if wording.zh_v2:
            assert f"| {wording.zh} | {wording.zh_v2} |" in docs, key


def test_the_date_labels_of_the_brief_change_in_v2() -> None:
    assert (WORDING["stmt.start_date"].zh, WORDING["stmt.start_date"].zh_v2) == ("开始日期", "起始日期")
    assert (WORDING["stmt.end_date"].zh, WORDING["stmt.end_date"].zh_v2) == ("结束日期", "截止日期")
    assert (WORDING["pay.payee_name"].zh, WORDING["pay.payee_name"].zh_v2) == ("收款人名称", "收款方户名")
