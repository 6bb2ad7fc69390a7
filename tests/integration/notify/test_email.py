"""E-mail through a local SMTP server: plain, STARTTLS with login, implicit TLS, and each failure's fate."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from finrpa.db.engine import unit_of_work
from finrpa.notify import service
from finrpa.notify.events import ApprovalRequested
from finrpa.notify.outbox import enqueue
from finrpa.notify.schemas import ChannelCreate, DeliveryStatus, DeliveryView
from finrpa.tenancy import TenantDatabase, use_tenant
from tests.integration.notify.conftest import ORG, TEST_SECRETS, acting_for, add_channel, dispatcher_for
from tests.integration.notify.smtp_server import SmtpServer, self_signed_certificate

PASSWORD_REF = "secret://env/FINRPA_NOTIFY_SECRET_SMTP"
PASSWORD = TEST_SECRETS["FINRPA_NOTIFY_SECRET_SMTP"]


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path)


@pytest.fixture
def server_tls(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


@pytest.fixture
async def plain_server() -> AsyncIterator[SmtpServer]:
    async with SmtpServer() as server:
        yield server


def _email_channel(port: int, **settings: object) -> ChannelCreate:
    config = {
        "kind": "email",
        "host": "127.0.0.1",
        "port": port,
        "security": "none",
        "from_address": "finrpa@bank.example",
        "to": ["ops@bank.example"],
        **settings,
    }
    return ChannelCreate.model_validate({"name": "mail", "config": config})


def _approval(recipients: tuple[str, ...] = ()) -> ApprovalRequested:
    return ApprovalRequested(
        org_id=ORG,
        approval_id="ap-7",
        run_id="run-7",
        action_summary="修改受益人",
        risk_level="high",
        requested_by="operator-1",
        recipients=recipients,
    )


async def _send(database: TenantDatabase, event: ApprovalRequested) -> DeliveryView:
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            await enqueue(session, event)
    await dispatcher_for(database, timeout_s=5.0).dispatch_due()
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            [view] = await service.list_deliveries(session, ORG)
    return view


async def test_plain_smtp_delivers_a_bilingual_message_to_channel_and_event_recipients(
    database: TenantDatabase, plain_server: SmtpServer
) -> None:
    channel_id = await add_channel(database, _email_channel(plain_server.port))
    event = _approval(recipients=("approver@bank.example", "ops@bank.example", "not-an-address"))

    view = await _send(database, event)

    assert view.status == DeliveryStatus.SENT
    [mail] = plain_server.mail
    assert mail.mail_from == "finrpa@bank.example"
    assert mail.rcpt_to == ("ops@bank.example", "approver@bank.example")
    message = mail.message()
    assert message["Subject"] == "【FinRPA】待审批：高风险操作 | Approval requested: high-risk action"
    assert message["X-FinRPA-Delivery"] == f"{event.event_id}:{channel_id}"
    assert message["Message-ID"].endswith("@bank.example>")
    body = message.get_content()
    assert body.index("待审批：高风险操作") < body.index("Approval requested") < body.index("修改受益人")
    assert "https://finrpa.bank.example/approvals/ap-7" in body


async def test_starttls_with_login_sends_the_password_only_inside_tls(
    database: TenantDatabase, server_tls: ssl.SSLContext, certificate: tuple[Path, Path]
) -> None:
    async with SmtpServer(tls=server_tls, login=("finrpa", PASSWORD)) as server:
        settings = {"security": "starttls", "username": "finrpa", "password": PASSWORD_REF}
        await add_channel(database, _email_channel(server.port, ca_file=str(certificate[0]), **settings))
        view = await _send(database, _approval())
    assert view.status == DeliveryStatus.SENT
    [mail] = server.mail
    assert mail.encrypted and mail.login == "finrpa"


async def test_implicit_tls(
    database: TenantDatabase, server_tls: ssl.SSLContext, certificate: tuple[Path, Path]
) -> None:
    async with SmtpServer(tls=server_tls, implicit_tls=True) as server:
        await add_channel(database, _email_channel(server.port, security="ssl", ca_file=str(certificate[0])))
        view = await _send(database, _approval())
    assert view.status == DeliveryStatus.SENT
    assert server.mail[0].encrypted


async def test_an_untrusted_certificate_is_not_retried_and_says_what_to_do(
    database: TenantDatabase, server_tls: ssl.SSLContext
) -> None:
    async with SmtpServer(tls=server_tls) as server:
        await add_channel(database, _email_channel(server.port, security="starttls"))
        view = await _send(database, _approval())
    assert view.status == DeliveryStatus.DEAD
    assert "ca_file" in (view.last_error or "")
    assert server.mail == []


async def test_a_refused_login_is_dead_and_the_error_never_holds_the_password(
    database: TenantDatabase, server_tls: ssl.SSLContext, certificate: tuple[Path, Path]
) -> None:
    async with SmtpServer(tls=server_tls, login=("finrpa", "another-password")) as server:
        settings = {"security": "starttls", "username": "finrpa", "password": PASSWORD_REF}
        await add_channel(database, _email_channel(server.port, ca_file=str(certificate[0]), **settings))
        view = await _send(database, _approval())
    assert view.status == DeliveryStatus.DEAD
    assert "refused the login" in (view.last_error or "")
    assert PASSWORD not in (view.last_error or "")


async def test_a_temporary_smtp_refusal_is_retried_and_a_permanent_one_is_not(
    database: TenantDatabase, plain_server: SmtpServer
) -> None:
    await add_channel(database, _email_channel(plain_server.port))
    plain_server.data_replies = ["451 4.3.0 Try again later", "550 5.7.1 Rejected by policy"]

    temporary = await _send(database, _approval())
    assert (temporary.status, temporary.attempts) == (DeliveryStatus.PENDING, 1)
    assert "SMTP 451" in (temporary.last_error or "")

    await dispatcher_for(database).dispatch_due(temporary.next_attempt_at)
    with use_tenant(acting_for()):
        async with unit_of_work(database.sessions) as session:
            [permanent] = await service.list_deliveries(session, ORG)
    assert permanent.status == DeliveryStatus.DEAD
    assert "SMTP 550" in (permanent.last_error or "")
    assert plain_server.mail == []
