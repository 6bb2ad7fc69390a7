"""Helpers of the audit integration tests: append rows as the run layer does, and tamper as an owner would."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from finrpa.audit.canonical import canonical_bytes, row_document
from finrpa.audit.events import AuditEntry
from finrpa.audit.models import AuditRecord
from finrpa.audit.service import AppendedRecord, AuditService
from finrpa.tenancy import TenantDatabase, system_context

SQLITE_TRIGGERS = (
    "audit_records_no_update",
    "audit_records_no_delete",
    "audit_chain_heads_no_delete",
    "audit_chain_heads_forward_only",
)


def click(org_id: str, index: int, **overrides: Any) -> AuditEntry:
    values: dict[str, Any] = {
        "org_id": org_id,
        "action_type": "CLICK",
        "task_id": "task-1",
        "dept_id": "dept-a",
        "user_id": "operator-1",
        "action_index": index,
        "target_element": f"button 下一步 {index}",
        "duration_ms": 120,
    }
    values.update(overrides)
    return AuditEntry(**values)


async def append_rows(
    database: TenantDatabase, service: AuditService, org_id: str, count: int, **overrides: Any
) -> list[AppendedRecord]:
    """``count`` rows, one transaction each (as a run's steps would commit them)."""
    appended = []
    with system_context("test appends", org_id=org_id):
        for index in range(count):
            async with database.sessions() as session, session.begin():
                appended.append(await service.append(session, click(org_id, index, **overrides)))
    return appended


async def verify(database: TenantDatabase, service: AuditService, org_id: str) -> Any:
    with system_context("test verify", org_id=org_id):
        async with database.sessions() as session, session.begin():
            return await service.verify(session, org_id)


async def checkpoint(database: TenantDatabase, service: AuditService, org_id: str) -> Any:
    with system_context("test checkpoint", org_id=org_id):
        async with database.sessions() as session, session.begin():
            return await service.checkpoint(session, org_id)


async def tamper(engine: AsyncEngine, *statements: tuple[str, dict[str, Any]]) -> None:
    """Run SQL as the owner with the append-only triggers out of the way (then put them back on PostgreSQL)."""
    postgres = engine.dialect.name == "postgresql"
    async with engine.begin() as connection:
        if postgres:
            await connection.execute(text("ALTER TABLE audit_records DISABLE TRIGGER USER"))
            await connection.execute(text("ALTER TABLE audit_chain_heads DISABLE TRIGGER USER"))
        else:
            for name in SQLITE_TRIGGERS:
                await connection.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
        for sql, params in statements:
            await connection.execute(text(sql), params)
        if postgres:
            await connection.execute(text("ALTER TABLE audit_records ENABLE TRIGGER USER"))
            await connection.execute(text("ALTER TABLE audit_chain_heads ENABLE TRIGGER USER"))


async def stored_rows(engine: AsyncEngine, org_id: str) -> list[dict[str, Any]]:
    """The organisation's rows as the owner sees them (typed columns), in seq order."""
    table = AuditRecord.__table__
    async with engine.connect() as connection:
        result = await connection.execute(select(table).where(table.c.org_id == org_id).order_by(table.c.seq))
        return [dict(row._mapping) for row in result]


async def insert_raw(engine: AsyncEngine, row: dict[str, Any]) -> None:
    """Insert a row as the owner, past the audit service (inserts are not blocked by the triggers)."""
    async with engine.begin() as connection:
        await connection.execute(insert(AuditRecord.__table__).values(**row))


def rehash(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A row with ``changes`` applied and a row_hash recomputed the way FinRPA computes it."""
    updated = {**row, **changes}
    updated["row_hash"] = hashlib.sha256(canonical_bytes(row_document(updated))).hexdigest()
    return updated
