"""Channel secrets kept in the credential vault: used to sign, read under permission, logged and audited."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from finrpa.audit.models import AuditRecord
from finrpa.audit.service import AuditService
from finrpa.config import get_settings
from finrpa.db.engine import unit_of_work
from finrpa.db.migrate import upgrade
from finrpa.identity.permissions import Principal
from finrpa.notify.dispatcher import Dispatcher
from finrpa.notify.events import RunFailed
from finrpa.notify.outbox import enqueue
from finrpa.notify.schemas import ChannelCreate, DeliveryStatus
from finrpa.notify.service import list_deliveries
from finrpa.notify.signing import verify_webhook_signature
from finrpa.notify.vault_secrets import deployment_secret_resolver
from finrpa.tenancy import TenantDatabase, open_tenant_database, system_context, use_tenant
from finrpa.vault.service import VaultService
from tests.integration.notify.conftest import ORG, Receiver, acting_for, add_channel, dispatcher_for

VAULT_SIGNING_SECRET = "test-vault-signing-not-real"


@pytest.fixture
async def vault_database(database_url: str) -> AsyncIterator[TenantDatabase]:
    for branch in ("identity@head", "audit@head", "notify@head"):
        await upgrade(database_url, branch)
    database = open_tenant_database(database_url)
    try:
        yield database
    finally:
        await database.dispose()


async def _store(database: TenantDatabase, name: str, value: str) -> None:
    with system_context("test: store a channel secret", org_id=ORG):
        async with unit_of_work(database.sessions) as session:
            await VaultService(session, get_settings()).put_secret(
                Principal.platform(ORG, "test"), ORG, name, value
            )


def _dispatcher(database: TenantDatabase) -> Dispatcher:
    settings = get_settings()
    secrets = deployment_secret_resolver(database.sessions, settings, AuditService.from_settings(settings))
    template = dispatcher_for(database)
    return Dispatcher(database.sessions, config=template.config, secrets=secrets)


async def test_a_vault_secret_signs_the_webhook_and_its_read_is_logged_and_audited(
    vault_database: TenantDatabase, receiver: Receiver
) -> None:
    await _store(vault_database, "notify/siem-signing", VAULT_SIGNING_SECRET)
    config = {"kind": "webhook", "url": receiver.url("/siem"), "secret": "secret://notify/siem-signing"}
    await add_channel(vault_database, ChannelCreate(name="siem", config=config))
    with use_tenant(acting_for()):
        async with unit_of_work(vault_database.sessions) as session:
            await enqueue(session, RunFailed(org_id=ORG, run_id="run-1", error="portal returned 503"))

    assert (await _dispatcher(vault_database).dispatch_due()).sent == 1

    [request] = receiver.received("/siem")
    verify_webhook_signature(
        VAULT_SIGNING_SECRET,
        body=request.body,
        timestamp_header=request.headers["x-finrpa-timestamp"],
        signature_header=request.headers["x-finrpa-signature"],
        now=datetime.now(UTC).timestamp(),
    )
    with system_context("test: read the logs", org_id=ORG):
        async with unit_of_work(vault_database.sessions) as session:
            reads = await VaultService(session, get_settings()).reads(Principal.platform(ORG, "test"), ORG)
            audit = (await session.scalars(select(AuditRecord))).all()
    assert [(read.secret_name, read.purpose) for read in reads] == [
        ("notify/siem-signing", "send a notification")
    ]
    [row] = [record for record in audit if record.action_type == "CREDENTIAL_READ"]
    assert row.executor == "system:notify"
    assert VAULT_SIGNING_SECRET not in json.dumps([str(getattr(row, c.key)) for c in AuditRecord.__table__.c])


async def test_a_missing_vault_secret_buries_the_delivery_with_a_sentence(
    vault_database: TenantDatabase, receiver: Receiver
) -> None:
    config = {"kind": "webhook", "url": receiver.url("/siem"), "secret": "secret://notify/never-stored"}
    await add_channel(vault_database, ChannelCreate(name="siem", config=config))
    with use_tenant(acting_for()):
        async with unit_of_work(vault_database.sessions) as session:
            await enqueue(session, RunFailed(org_id=ORG, run_id="run-1", error="portal returned 503"))

    assert (await _dispatcher(vault_database).dispatch_due()).dead == 1

    with use_tenant(acting_for()):
        async with unit_of_work(vault_database.sessions) as session:
            [view] = await list_deliveries(session, ORG)
    assert view.status == DeliveryStatus.DEAD
    assert "secret://notify/never-stored cannot be read from the vault" in (view.last_error or "")
    assert receiver.received() == []
