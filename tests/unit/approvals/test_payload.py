"""The payload hash binds a decision to one exact action; approvers see it masked."""

from __future__ import annotations

import math

import pytest

from finrpa.approvals.errors import InvalidApprovalRequestError
from finrpa.approvals.payload import MAX_ACTION_BYTES, canonical_json, payload_hash, sanitized_action, summarize


def test_the_hash_ignores_key_order_but_not_values() -> None:
    action = {"skill": "FormFillSkill", "params": {"金额": "1,500,000.00", "收款账号": "6222021234567890"}}
    reordered = {"params": {"收款账号": "6222021234567890", "金额": "1,500,000.00"}, "skill": "FormFillSkill"}
    changed = {"skill": "FormFillSkill", "params": {"金额": "1,500,000.01", "收款账号": "6222021234567890"}}
    assert payload_hash(action) == payload_hash(reordered) != payload_hash(changed)
    assert len(payload_hash(action)) == 64


def test_canonical_json_is_compact_sorted_utf8() -> None:
    assert canonical_json({"b": 1, "a": "金额"}) == '{"a":"金额","b":1}'


@pytest.mark.parametrize("bad", [{"amount": math.nan}, {"when": object()}])
def test_values_that_are_not_plain_json_are_refused_with_a_sentence(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidApprovalRequestError, match="not plain JSON"):
        payload_hash(bad)


def test_approvers_see_the_action_masked_and_shortened() -> None:
    masked = sanitized_action({"收款账号": "6222021234567890", "password": "secret://bank/pw", "收款人": "张三丰"})
    assert masked == {"收款账号": "************7890", "password": "******", "收款人": "张**"}
    assert len(summarize({"note": "x" * 1000})) == 300


def test_an_oversized_action_is_refused() -> None:
    with pytest.raises(InvalidApprovalRequestError, match="at most"):
        sanitized_action({"blob": "x" * MAX_ACTION_BYTES})


def test_the_summary_reads_as_a_line_an_approver_understands() -> None:
    action = {
        "skill": "form_fill",
        "business_id": "PAY-1",
        "params": {
            "fields": {"收款人": "张三丰", "收款账号": "6222021234567890", "付款金额": "1,500,000.00"},
            "submit": "确认付款",
            "captcha": None,
            "confirm": True,
        },
    }
    assert summarize(sanitized_action(action)) == (
        "form_fill — 收款人: 张**; 收款账号: ************7890; 付款金额: 1,500,000.00; submit: 确认付款; confirm: yes"
        " · ref PAY-1"
    )


def test_a_browser_action_is_summarised_by_kind_operation_element_and_typed_values() -> None:
    action = {
        "kind": "click",
        "operation": "转账",
        "target": {"role": "button", "name": "Pay now", "index": 0},
        "value": None,
        "typed": {"金额": "1,500,000", "accounts": ["A-1", "A-2"]},
    }
    assert summarize(action) == 'click 转账 — target: button "Pay now"; 金额: 1,500,000; accounts: A-1, A-2'
    assert summarize({}) == "action"
