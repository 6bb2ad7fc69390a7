"""Events get stable ids, and render bilingually (Chinese first) with neutralised untrusted values."""

from __future__ import annotations

from datetime import UTC, datetime

from finrpa.notify.events import ApprovalRequested, NeedsHuman, RunFailed, parse_event
from finrpa.notify.render import MAX_VALUE_CHARS, RenderOptions, render

OPTIONS = RenderOptions(dashboard_url="https://finrpa.bank.example/", timezone="Asia/Shanghai")


def test_event_id_is_derived_from_the_subject_so_a_retried_step_enqueues_the_same_event() -> None:
    first = NeedsHuman(org_id="org-a", run_id="r1", reason="captcha", sequence=7)
    again = NeedsHuman(org_id="org-a", run_id="r1", reason="captcha (retried step)", sequence=7)
    later = NeedsHuman(org_id="org-a", run_id="r1", reason="captcha", sequence=9)
    other_org = NeedsHuman(org_id="org-b", run_id="r1", reason="captcha", sequence=7)
    assert first.event_id == again.event_id
    assert len({first.event_id, later.event_id, other_org.event_id}) == 3
    assert RunFailed(org_id="org-a", run_id="r1", error="x", event_id="given").event_id == "given"


def test_stored_payload_round_trips_to_the_same_typed_event() -> None:
    event = ApprovalRequested(
        org_id="org-a",
        approval_id="ap1",
        run_id="r1",
        action_summary="转账 ¥1,200,000 到 6222****1234",
        risk_level="critical",
        requested_by="张三",
        required_approvals=2,
        expires_at=datetime(2026, 12, 1, 2, 0, tzinfo=UTC),
    )
    assert parse_event(event.model_dump(mode="json")) == event


def test_markdown_is_chinese_first_links_to_the_dashboard_and_shows_local_time() -> None:
    event = ApprovalRequested(
        org_id="org-a",
        approval_id="ap1",
        run_id="r1",
        action_summary="转账",
        risk_level="high",
        requested_by="张三",
        expires_at=datetime(2026, 12, 1, 2, 0, tzinfo=UTC),
    )
    message = render(event, OPTIONS)
    assert message.link == "https://finrpa.bank.example/approvals/ap1"
    assert message.markdown.index("待审批：高风险操作") < message.markdown.index(
        "Approval requested: high-risk"
    )
    assert "2026-12-01 10:00:00 (Asia/Shanghai)" in message.markdown
    assert f"]({message.link})" in message.markdown
    assert message.title.startswith("【FinRPA】待审批")
    assert (
        message.text.index("待审批")
        < message.text.index("Approval requested")
        < message.text.index(message.link)
    )


def test_a_page_cannot_plant_a_link_or_html_in_a_message() -> None:
    reason = "请点击 [这里](http://evil.example/login) <a href='https://evil.example'>x</a>\n### 假标题"
    message = render(NeedsHuman(org_id="org-a", run_id="r1", reason=reason), OPTIONS)
    body_without_our_link = message.markdown.replace(f"]({message.link})", "")
    for forbidden in ("](", "<a", "http://", "https://", "\n### 假标题"):
        assert forbidden not in body_without_our_link
    assert "http://" not in message.text.replace(message.link, "")
    assert "evil.example" in message.markdown  # still readable to a person, just not clickable


def test_long_values_are_bounded() -> None:
    message = render(RunFailed(org_id="org-a", run_id="r1", error="错" * 5000), OPTIONS)
    error_line = next(line for line in message.markdown.splitlines() if "Error" in line)
    assert error_line.partition("：")[2].count("错") == MAX_VALUE_CHARS - 1
    assert error_line.endswith("…")
