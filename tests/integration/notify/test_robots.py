"""Each channel kind, end to end through the outbox: the receiver checks payload shapes and signatures."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime

from finrpa.db.engine import unit_of_work
from finrpa.notify.events import ApprovalRequested, NeedsHuman, RunFailed
from finrpa.notify.outbox import enqueue
from finrpa.notify.schemas import ChannelCreate, DeliveryStatus
from finrpa.notify.signing import verify_webhook_signature
from finrpa.tenancy import TenantDatabase, use_tenant
from tests.integration.notify.conftest import (
    ORG,
    TEST_SECRETS,
    Answer,
    Receiver,
    acting_for,
    add_channel,
    dispatcher_for,
)

WECOM_KEY = "test-wecom-key-not-real"


async def _enqueue(database: TenantDatabase, event: object) -> list[str]:
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            return await enqueue(session, event)  # type: ignore[arg-type]


async def _statuses(database: TenantDatabase) -> list[tuple[str, int, str | None]]:
    from finrpa.notify import service

    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            views = await service.list_deliveries(session, ORG)
    return [(view.status, view.attempts, view.last_error) for view in views]


async def test_wecom_robot_gets_markdown_and_its_errcode_is_checked(
    database: TenantDatabase, receiver: Receiver
) -> None:
    url = receiver.url(f"/cgi-bin/webhook/send?key={WECOM_KEY}")
    await add_channel(database, ChannelCreate(name="ops-wecom", config={"kind": "wecom", "url": url}))
    await _enqueue(database, NeedsHuman(org_id=ORG, run_id="run-1", reason="验证码无法识别", sequence=3))

    report = await dispatcher_for(database).dispatch_due()

    assert report.sent == 1
    [request] = receiver.received("/cgi-bin/webhook/send")
    assert request.query == {"key": [WECOM_KEY]}
    assert request.headers["content-type"].startswith("application/json")
    body = request.json()
    assert isinstance(body, dict) and body["msgtype"] == "markdown"
    content = body["markdown"]["content"]
    assert content.startswith("### 【FinRPA】任务需要人工处理")
    assert "验证码无法识别" in content and "https://finrpa.bank.example/tasks/run-1" in content
    assert await _statuses(database) == [(DeliveryStatus.SENT, 1, None)]


async def test_wecom_refusal_is_dead_at_once_and_rate_limit_is_retried(
    database: TenantDatabase, receiver: Receiver
) -> None:
    await add_channel(
        database,
        ChannelCreate(name="ops", config={"kind": "wecom", "url": receiver.url(f"/w?key={WECOM_KEY}")}),
    )
    receiver.answer(Answer(body={"errcode": 45009, "errmsg": "api freq out of limit"}))
    await _enqueue(database, RunFailed(org_id=ORG, run_id="run-1", error="timeout"))
    first = await dispatcher_for(database).dispatch_due()
    assert first.retrying == 1

    receiver.answer(Answer(body={"errcode": 93000, "errmsg": f"invalid webhook url, key {WECOM_KEY}"}))
    await _enqueue(database, RunFailed(org_id=ORG, run_id="run-2", error="timeout"))
    second = await dispatcher_for(database).dispatch_due()
    assert second.dead == 1
    errors = [error for _, _, error in await _statuses(database) if error]
    assert any("errcode 93000" in error for error in errors)
    assert all(WECOM_KEY not in error for error in errors)  # the key is scrubbed even when echoed back


async def test_dingtalk_robot_request_is_signed_as_dingtalk_documents(
    database: TenantDatabase, receiver: Receiver
) -> None:
    config = {
        "kind": "dingtalk",
        "url": receiver.url("/robot/send?access_token=test-token-not-real"),
        "secret": "secret://env/FINRPA_NOTIFY_SECRET_DINGTALK",
    }
    await add_channel(database, ChannelCreate(name="approvers", config=config))
    await _enqueue(
        database,
        ApprovalRequested(
            org_id=ORG,
            approval_id="ap-1",
            run_id="run-1",
            action_summary="转账 ¥1,500,000",
            risk_level="critical",
            requested_by="operator-7",
            required_approvals=2,
            expires_at=datetime(2026, 12, 1, 3, 0, tzinfo=UTC),
        ),
    )

    assert (await dispatcher_for(database).dispatch_due()).sent == 1

    [request] = receiver.received("/robot/send")
    secret = TEST_SECRETS["FINRPA_NOTIFY_SECRET_DINGTALK"]
    timestamp = request.query["timestamp"][0]
    digest = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    assert request.query["sign"] == [base64.b64encode(digest).decode()]
    assert request.query["access_token"] == ["test-token-not-real"]
    body = request.json()
    assert isinstance(body, dict) and body["msgtype"] == "markdown"
    assert body["markdown"]["title"].startswith("【FinRPA】待审批：极高风险操作")
    assert "https://finrpa.bank.example/approvals/ap-1" in body["markdown"]["text"]


async def test_webhook_is_signed_over_timestamp_and_raw_body_with_idempotency_headers(
    database: TenantDatabase, receiver: Receiver
) -> None:
    config = {
        "kind": "webhook",
        "url": receiver.url("/hooks/finrpa"),
        "secret": "secret://env/FINRPA_NOTIFY_SECRET_HOOK",
    }
    channel_id = await add_channel(database, ChannelCreate(name="siem", config=config))
    event = RunFailed(org_id=ORG, run_id="run-9", error="portal returned 503", template_name="bank_statement")
    await _enqueue(database, event)

    assert (await dispatcher_for(database).dispatch_due()).sent == 1

    [request] = receiver.received("/hooks/finrpa")
    headers = request.headers
    assert headers["x-finrpa-event"] == "run.failed"
    assert headers["x-finrpa-delivery"] == f"{event.event_id}:{channel_id}"
    verify_webhook_signature(
        TEST_SECRETS["FINRPA_NOTIFY_SECRET_HOOK"],
        body=request.body,
        timestamp_header=headers["x-finrpa-timestamp"],
        signature_header=headers["x-finrpa-signature"],
        now=datetime.now(UTC).timestamp(),
    )
    body = json.loads(request.body)
    assert body["delivery"] == headers["x-finrpa-delivery"]
    assert body["event"] == "run.failed" and body["org_id"] == ORG and body["attempt"] == 1
    assert body["data"]["run_id"] == "run-9" and body["data"]["template_name"] == "bank_statement"
    assert body["message"]["link"] == "https://finrpa.bank.example/tasks/run-9"
    assert "recipients" not in body["data"]
