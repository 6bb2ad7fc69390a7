"""``finrpa risk assess``: JSON lines in, one RiskDecision per line out, with and without an LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from finrpa.cli import app
from finrpa.config import get_settings
from tests.fixtures.llm_server import MODELS, TEST_API_KEY, Reply, ScriptedLLMServer

LINES = [
    {"id": "q1", "domain": "bank", "page_title": "转账汇款", "page_text": "", "action_type": "click",
     "target_text": "转账记录查询", "values": {}, "effect": "read"},
    {"id": "p1", "domain": "bank", "page_title": "对公付款", "page_text": "确认付款 付款金额 壹佰伍拾万元整",
     "action_type": "click", "target_text": "确认", "values": {}, "effect": "irreversible"},
]  # fmt: skip


def _assess(*args: str, stdin: str) -> Result:
    return CliRunner().invoke(app, ["risk", "assess", *args], input=stdin)


def _stdin() -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in LINES)


def test_stage_1_only_echoes_ids_and_levels() -> None:
    result = _assess("-", "--no-llm", stdin=_stdin())
    assert result.exit_code == 0, result.output
    decisions = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(d["id"], d["final_level"], d["requires_approval"]) for d in decisions] == [
        ("q1", "medium", False),
        ("p1", "critical", True),
    ]


def test_an_org_config_file_changes_the_thresholds(tmp_path: Path) -> None:
    config = tmp_path / "org-risk.yaml"
    config.write_text("payment_critical_cny: 2000000\napproval_levels: [critical]\n", encoding="utf-8")
    result = _assess("-", "--no-llm", "--org-config", str(config), stdin=_stdin())
    assert [json.loads(line)["final_level"] for line in result.stdout.splitlines()] == ["medium", "high"]


def test_a_bad_line_is_reported_and_the_rest_is_assessed(tmp_path: Path) -> None:
    source = tmp_path / "actions.jsonl"
    source.write_text('{"id": "x", "effect": "delete"}\n' + _stdin(), encoding="utf-8")
    result = _assess(str(source), "--no-llm", stdin="")
    assert result.exit_code == 1
    assert "line 1: effect" in result.stderr
    assert len(result.stdout.splitlines()) == 2


def test_with_an_llm_configured_stage_2_runs(llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    llm_server.enqueue(
        Reply.json({"level": "low", "reason": "A query of past transfers."}),
        Reply.json({"level": "low", "reason": "Looks fine."}),
    )
    env = {
        "FINRPA_LLM_PROVIDER": "openai",
        "FINRPA_LLM_BASE_URL": llm_server.openai_base_url,
        "FINRPA_LLM_API_KEY": TEST_API_KEY,
        "FINRPA_LLM_MODEL_LIGHT": MODELS["light"],
        "FINRPA_LLM_MODEL_STANDARD": MODELS["standard"],
        "FINRPA_LLM_TIMEOUT_S": "5",
        "FINRPA_LLM_BACKOFF_INITIAL_S": "0",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    result = _assess("-", stdin=_stdin())
    assert result.exit_code == 0, result.output
    decisions = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["final_level"] for d in decisions] == ["low", "critical"]
    assert decisions[0]["stage2_result"]["reason"] == "A query of past transfers."
