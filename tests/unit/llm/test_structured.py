"""Cleaning and validating what a model replies, before anything acts on it."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel

from finrpa.llm import StructuredOutputError, clean_llm_response, parse_and_validate
from finrpa.llm.structured import schema_instruction


class Step(BaseModel):
    action: Literal["click", "fill"]
    target: str
    count: int = 1


@pytest.mark.parametrize(
    "raw",
    [
        '{"action": "click", "target": "查询"}',
        '  \n{"action": "click", "target": "查询"}\n\n',
        '```json\n{"action": "click", "target": "查询"}\n```',
        '```\n{"action": "click", "target": "查询"}\n```',
        'Sure, here it is:\n```JSON\n{"action": "click", "target": "查询"}\n```\nAnything else?',
        'I will click the button {as asked}. {"action": "click", "target": "查询"} Done.',
        '<think>the user wants {"action": "fill"}</think>{"action": "click", "target": "查询"}',
        '\ufeff{"action": "click", "target": "查询"}',
    ],
)
def test_clean_llm_response_recovers_the_json_object(raw: str) -> None:
    assert json.loads(clean_llm_response(raw)) == {"action": "click", "target": "查询"}


def test_clean_llm_response_keeps_the_outermost_object_with_braces_inside_strings() -> None:
    raw = 'Result: {"action": "fill", "target": "a } b { c", "nested": {"x": "\\"}"}} trailing {junk}'
    assert json.loads(clean_llm_response(raw)) == {
        "action": "fill",
        "target": "a } b { c",
        "nested": {"x": '"}'},
    }


def test_parse_and_validate_returns_the_model() -> None:
    step = parse_and_validate('```json\n{"action": "fill", "target": "账号", "count": 2}\n```', Step)
    assert step == Step(action="fill", target="账号", count=2)


def test_invalid_json_says_where_and_what_it_saw() -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_and_validate('{"action": "click", "target": ', Step)
    assert "not valid JSON" in caught.value.message
    assert '"action"' in caught.value.message


def test_schema_violation_names_each_field() -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_and_validate('{"action": "delete", "count": "many"}', Step)
    message = caught.value.message
    assert "Step schema" in message
    assert "action" in message and "target" in message and "count" in message


@pytest.mark.parametrize("raw", ["", "   ", "[1, 2]", "no json here at all"])
def test_non_objects_are_refused(raw: str) -> None:
    with pytest.raises(StructuredOutputError):
        parse_and_validate(raw, Step)


def test_schema_instruction_embeds_the_schema_and_the_strict_rule() -> None:
    instruction = schema_instruction(Step)
    assert "JSON object only" in instruction
    embedded = json.loads(instruction[instruction.index("{") :])
    assert embedded == Step.model_json_schema()
