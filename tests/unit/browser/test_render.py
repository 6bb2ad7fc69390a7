"""The LLM rendering stays within its token budget and says what it left out."""

from __future__ import annotations

from finrpa.browser.render import HARD_CAP_TOKENS, element_line, estimate_tokens, render_snapshot
from finrpa.browser.snapshot import ElementInfo, Fingerprint, FrameInfo, PageSnapshot, TableSummary


def _element(index: int, name: str = "开始日期", **extra: object) -> ElementInfo:
    fingerprint = Fingerprint(role="textbox", name=name, container="查询条件")
    return ElementInfo(ref=f"e{index}", role="textbox", name=name, tag="input", type="text",
                       bbox=(0, 0, 10, 10), fingerprint=fingerprint, **extra)  # type: ignore[arg-type]


def _snapshot(count: int) -> PageSnapshot:
    return PageSnapshot(
        snapshot_id="s1", tab_id="t1", navigation_id="d.0", epoch=0, url="http://bank.example/q?token=x",
        title="查询",
        frames=[FrameInfo(frame_id="f0", path="main", parent_id=None, url="http://bank.example", document="d")],
        elements=[_element(i, f"字段{i}号说明") for i in range(1, count + 1)],
        tables=[TableSummary(table_id="t1", caption="交易明细", headers=["日期", "金额"], row_count=25)],
        text="交易明细 " * 400,
    )


def test_cjk_counts_one_token_per_character_and_latin_about_four_characters() -> None:
    assert estimate_tokens("开始日期") == 4
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("金额 amount") == 2 + 2


def test_element_line_shows_ref_role_name_value_and_state() -> None:
    line = element_line(_element(12, value="2024-01-01", required=True))
    assert line == '[e12] textbox "开始日期" value="2024-01-01" required in "查询条件"'


def test_rendering_respects_the_budget_and_counts_what_it_omitted() -> None:
    text = render_snapshot(_snapshot(400), token_budget=2000)
    assert estimate_tokens(text) <= 2000
    shown = sum(1 for line in text.splitlines() if line.startswith("[e"))
    assert f"… {400 - shown} elements omitted" in text
    assert '[t1] table "交易明细" rows=25 columns=[日期, 金额]' in text
    assert "token=x" not in text


def test_budget_is_capped_at_the_hard_limit() -> None:
    text = render_snapshot(_snapshot(3000), token_budget=50_000)
    assert estimate_tokens(text) <= HARD_CAP_TOKENS


def test_a_small_page_is_rendered_whole() -> None:
    text = render_snapshot(_snapshot(3), token_budget=2000)
    assert "omitted" not in text and text.count("\n[e") == 3
