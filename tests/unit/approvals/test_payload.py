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
