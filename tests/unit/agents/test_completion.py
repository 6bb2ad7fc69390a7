"""Completion conditions of free-form subtasks: the stored one-line form, and the checks done in code."""

from __future__ import annotations

import pytest

from finrpa.agents.completion import CompletionCondition, CompletionKind, condition_met
from finrpa.browser import PageSnapshot
from finrpa.browser.snapshot import ElementInfo, Fingerprint, TableSummary


def element(ref: str, role: str, name: str, *, disabled: bool = False) -> ElementInfo:
    fingerprint = Fingerprint(role=role, name=name)
    return ElementInfo(ref=ref, role=role, name=name, tag="a", bbox=(0, 0, 10, 10), disabled=disabled,
                       fingerprint=fingerprint)  # fmt: skip


SNAPSHOT = PageSnapshot(
    snapshot_id="s1", tab_id="t1", navigation_id="d.1", epoch=0, url="https://bank.example/bank/statement?page=2",
    title="网银", frames=[], text="共 238 条记录，第 2/12 页",
    elements=[element("e1", "link", "下一页"), element("e2", "button", "导出PDF", disabled=True)],
    tables=[TableSummary(table_id="t1", caption="交易明细", headers=["交易日期"], row_count=20)],
)  # fmt: skip


async def no_more_text() -> str:
    return ""


@pytest.mark.parametrize(
    "line",
    ["url_contains: /bank/statement", "text_visible: 付款提交成功", "element_visible: [button] 导出CSV",
     "element_absent: [link] 下一页", "table_visible: 交易明细", "download"],
)  # fmt: skip
def test_the_stored_line_parses_back_to_the_same_condition(line: str) -> None:
    condition = CompletionCondition.parse(line)
    assert condition.checkable_in_code and condition.render() == line


def test_text_that_is_no_condition_form_is_judged_by_the_llm() -> None:
    condition = CompletionCondition.parse("the statement of the chosen account is shown")
    assert condition.kind is CompletionKind.JUDGED and not condition.checkable_in_code
    assert condition.value == "the statement of the chosen account is shown"


def test_a_condition_needs_a_value_and_roles_only_apply_to_elements() -> None:
    with pytest.raises(ValueError, match="needs a value"):
        CompletionCondition(kind=CompletionKind.TEXT_VISIBLE, value=" ")
    with pytest.raises(ValueError, match="role is only"):
        CompletionCondition(kind=CompletionKind.TABLE_VISIBLE, value="交易明细", role="table")


@pytest.mark.parametrize(
    ("line", "met"),
    [
        ("url_contains: /bank/statement", True),
        ("url_contains: /bank/payment", False),
        ("text_visible: 第 2/12 页", True),
        ("text_visible: 付款提交成功", False),
        ("element_visible: [link] 下一页", True),
        ("element_visible: [button] 下一页", False),
        ("element_visible: [button] 导出PDF", False),  # disabled: not usable, so not "visible" for the goal
        ("element_absent: [link] 下一页", False),
        ("element_absent: [link] 上一页", True),
        ("table_visible: 交易明细", True),
        ("download", False),
    ],
)
async def test_conditions_are_checked_in_code_against_the_snapshot(line: str, met: bool) -> None:
    condition = CompletionCondition.parse(line)
    assert await condition_met(condition, SNAPSHOT, downloads=[], full_text=no_more_text) is met


async def test_text_beyond_the_snapshot_excerpt_is_looked_up_on_the_page_and_judged_conditions_are_left_open() -> None:
    async def page_text() -> str:
        return "… 付款提交成功 交易流水号 PAY2024 …"

    shown = CompletionCondition.parse("text_visible: 付款提交成功")
    assert await condition_met(shown, SNAPSHOT, downloads=[], full_text=page_text) is True
    judged = CompletionCondition.parse("the payment went through")
    assert await condition_met(judged, SNAPSHOT, downloads=[], full_text=page_text) is None


async def test_names_match_as_the_resolver_reads_labels_so_a_renamed_layout_still_completes() -> None:
    v2 = SNAPSHOT.model_copy(
        update={"elements": [element("e1", "button", "下一步"), element("e2", "button", "Next  ")]}
    )

    async def met(line: str) -> bool | None:
        return await condition_met(CompletionCondition.parse(line), v2, downloads=[], full_text=no_more_text)

    assert await met("element_visible: [button] 提交") is True  # v2 says 下一步, a synonym of 提交
    assert await met("element_visible: [button] next") is True  # case and spacing
    assert await met("element_visible: [button] 导出CSV") is False  # not a synonym of anything shown
    assert await met("element_absent: [button] Submit") is False
