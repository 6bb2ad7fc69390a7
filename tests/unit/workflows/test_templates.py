"""Templates are data: checked against the skill registry at load time, with errors naming template, step, key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from finrpa.agents.planner import compile_template
from finrpa.workflows import loader
from finrpa.workflows.binding import ArgumentError, bind_arguments, step_params
from finrpa.workflows.loader import (
    TemplateError,
    builtin_template_dir,
    describe_template,
    get_template,
    load_builtin_templates,
    parse_template,
)

BASE = """
id: t1
name: test
domain: bank
parameters:
  url: {type: url}
  user: {}
steps:
  - id: login
    skill: LoginSkill
    params: {url: url, username: user, password: "=x"}
"""


def test_the_six_templates_load_and_compile() -> None:
    templates = load_builtin_templates()
    assert sorted(templates) == [
        "bank_payment_submission",
        "bank_statement_download",
        "insurance_claim_submission",
        "insurance_policy_application",
        "securities_compliance_report",
        "securities_trade_record_export",
    ]
    for template in templates.values():
        schema = describe_template(template)["parameters_schema"]
        assert schema["properties"], template.id
        assert all(p.get("writeOnly") for n, p in schema["properties"].items() if n == "password")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("skill: LoginSkill", "skill: NoSuchSkill"), "Template 't1' step 'login': No skill named 'NoSuchSkill'"),
        (("username: user", "username: usr"), "key 'username' refers to unknown parameter 'usr'"),
        (('password: "=x"}', 'password: "=x", colour: "=red"}'), "key 'colour' is not a parameter of LoginSkill"),
        (("username: user, ", ""), "required key 'username' of LoginSkill is not mapped"),
    ],
)
def test_load_errors_name_template_step_and_key(change: tuple[str, str], message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        parse_template(BASE.replace(*change), "t1.yaml")
    assert message in caught.value.message


def test_literal_and_reference_mapping_and_nested_fields() -> None:
    template = load_builtin_templates()["bank_statement_download"]
    arguments = bind_arguments(
        template,
        {
            "bank_url": "http://portal.example/bank/login",
            "username": "u",
            "password": "secret://bank",
            "account_number": "622",
            "start_date": "2024-01-01",
            "end_date": "2024-03-31",
        },
    )
    login = step_params(template, 0, arguments)
    assert login["captcha_strategy"] == "skip" and login["password"] == "secret://bank"
    assert "totp_secret" not in login  # an optional parameter without a value leaves the key out
    query = step_params(template, 1, arguments)
    assert query["fields"] == {"账号": "622", "开始日期": "2024-01-01", "结束日期": "2024-03-31"}
    assert query["navigate_to"] == ["账户明细查询"]
    plan = compile_template(template, arguments)
    again = compile_template(template, arguments)
    assert [s.subtask_id for s in plan.subtasks] == [s.subtask_id for s in again.subtasks]


def test_bad_arguments_are_all_reported_before_anything_runs() -> None:
    template = load_builtin_templates()["bank_statement_download"]
    with pytest.raises(ArgumentError) as caught:
        bind_arguments(template, {"bank_url": "ftp://x", "start_date": "31/03/2024", "colour": "red"})
    message = caught.value.message
    for expected in (
        "unknown parameter(s) colour",
        "missing required parameter 'username'",
        "is not an http(s) URL",
        "is not a date",
    ):
        assert expected in message


def test_a_sensitive_parameter_never_takes_a_plain_value_when_stored() -> None:
    from finrpa.runs.service import SensitiveArgumentError, stored_arguments

    template = load_builtin_templates()["bank_statement_download"]
    with pytest.raises(SensitiveArgumentError, match="secret://"):
        stored_arguments(template, {"password": "hunter2"})


def test_templates_are_validated_once_per_version_of_their_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = builtin_template_dir() / "bank_payment_submission.yaml"
    copy = tmp_path / source.name
    copy.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(loader, "builtin_template_dir", lambda: tmp_path)
    first = get_template("bank_payment_submission")
    assert get_template("bank_payment_submission") is first  # one validated copy serves every run
    with pytest.raises(ValidationError, match="frozen"):
        first.version = 99  # shared, so nobody may change it in place
    text = copy.read_text(encoding="utf-8").replace("version: 1\n", "version: 2\n", 1)
    assert "version: 2" in text
    copy.write_text(text, encoding="utf-8")
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 1_000_000))
    assert get_template("bank_payment_submission").version == 2  # an edited file is read again
