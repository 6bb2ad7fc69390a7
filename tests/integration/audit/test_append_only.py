"""The database refuses to change audit history: UPDATE, DELETE and TRUNCATE fail on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from finrpa.audit.service import AuditService
from finrpa.tenancy import system_context
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, click, stored_rows, verify

pytestmark = pytest.mark.asyncio(loop_scope="module")

OWNER_ATTEMPTS = [
    "UPDATE audit_records SET input_value = '\"forged\"' WHERE org_id = :org AND seq = 2",
    "UPDATE audit_records SET seq = seq + 100 WHERE org_id = :org",
    "DELETE FROM audit_records WHERE org_id = :org AND seq = 2",
    "DELETE FROM audit_records",
    "DELETE FROM audit_chain_heads WHERE org_id = :org",
    "UPDATE audit_chain_heads SET seq = 1 WHERE org_id = :org",
]
APP_ATTEMPTS = [
    "UPDATE audit_records SET execution_result = 'forged'",
    "DELETE FROM audit_records",
    "TRUNCATE audit_records",
    "DELETE FROM audit_chain_heads",
    "TRUNCATE audit_chain_heads",
]


async def test_the_owner_cannot_update_delete_or_truncate(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 3)
    attempts = [*OWNER_ATTEMPTS]
    if shared_db.is_postgres:  # SQLite has no TRUNCATE; DELETE without WHERE stands for it there
        attempts += ["TRUNCATE audit_records", "TRUNCATE audit_chain_heads"]
    for statement in attempts:
        with pytest.raises(DBAPIError, match=r"append-only|cannot be (updated|deleted)|only move forward"):
            async with shared_db.owner.begin() as connection:
                await connection.execute(text(statement), {"org": org_id} if ":org" in statement else {})
    rows = await stored_rows(shared_db.owner, org_id)
    assert [(row["seq"], row["input_value"]) for row in rows] == [(1, None), (2, None), (3, None)]
    assert (await verify(shared_db.app, audit_service, org_id)).ok


async def test_the_application_role_lacks_the_privileges(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    if not shared_db.is_postgres:
        pytest.skip("roles and grants exist on PostgreSQL only")
    await append_rows(shared_db.app, audit_service, org_id, 2)
    for statement in APP_ATTEMPTS:
        with system_context("test", org_id=org_id), pytest.raises(DBAPIError, match="permission denied"):
            async with shared_db.app.sessions() as session, session.begin():
                await session.execute(text(statement))
    assert len(await stored_rows(shared_db.owner, org_id)) == 2


async def test_appends_commit_and_roll_back_with_the_callers_transaction(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    with system_context("test", org_id=org_id):
        async with shared_db.app.sessions() as session:
            async with session.begin():
                await audit_service.append(session, click(org_id, 0))
                await session.rollback()
        async with shared_db.app.sessions() as session, session.begin():
            appended = await audit_service.append(session, click(org_id, 1))
    assert appended.seq == 1
    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.rows == 1
