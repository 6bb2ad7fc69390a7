"""Actions validate their input; records and intents never carry a secret or a card number."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import TypeAdapter, ValidationError

from finrpa.browser import Action, Click, Fill, SecretText, Target
from finrpa.browser.records import mask_value, redact_action
from finrpa.browser.snapshot import Fingerprint
from finrpa.browser.widgets import parse_date

ACTIONS: TypeAdapter[Action] = TypeAdapter(Action)


def test_actions_parse_from_json_by_kind() -> None:
    action = ACTIONS.validate_python(
        {"kind": "click", "snapshot_id": "s1", "target": {"ref": "e3"}, "expect": {"url_contains": "/done"}}
    )
    assert isinstance(action, Click) and action.expect is not None and action.expect.url_contains == "/done"


def test_a_target_needs_a_ref_or_a_fingerprint() -> None:
    with pytest.raises(ValidationError, match=r"ref .* or a fingerprint"):
        Target()


def test_unknown_fields_and_kinds_are_rejected() -> None:
    with pytest.raises(ValidationError):
        ACTIONS.validate_python({"kind": "click", "target": {"ref": "e1"}, "force": True})
    with pytest.raises(ValidationError):
        ACTIONS.validate_python({"kind": "teleport"})


@pytest.mark.parametrize(
    ("value", "sensitive", "masked"),
    [
        (SecretText("pa55word"), False, "******"),
        ("hunter2", True, "******"),
        ("6222 0212 3456 7890", False, "************7890"),
        ("11010119900307123X", False, "*************7123"),
        ("100.00", False, "100.00"),
        (None, False, None),
    ],
)
def test_mask_value(value: str | SecretText | None, sensitive: bool, masked: str | None) -> None:
    assert mask_value(value, sensitive=sensitive) == masked


def test_redacted_fill_keeps_the_target_and_drops_the_value() -> None:
    fingerprint = Fingerprint(role="textbox", name="登录密码")
    action = Fill(target=Target(fingerprint=fingerprint), value=SecretText("pa55word"))
    redacted = redact_action(action)
    assert isinstance(redacted, Fill) and redacted.value == "******" and redacted.target == action.target
    assert "pa55word" not in action.model_dump_json() and "pa55word" not in repr(action)


def test_parse_date_understands_common_portal_formats() -> None:
    texts = ("2024-03-01", "2024/3/1", "2024年3月1日", "20240301", "2024.03.01")
    assert {parse_date(t) for t in texts} == {date(2024, 3, 1)}
    assert parse_date("请选择") is None and parse_date("2024-02-30") is None
