"""Database access of the audit trail. Only INSERTs and reads of audit rows: there is no update or delete.

Reads for search and export are ORM statements on tenant-scoped models, so the tenancy hook scopes them to
the current organisation. The hot paths — appending a batch and streaming a chain for verification — are
Core statements (a fraction of the ORM's cost per transaction); they apply the same tenant rule explicitly,
and PostgreSQL Row-Level Security checks every statement again.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Select, Table, and_, bindparam, or_, select, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.audit.canonical import GENESIS_HASH, SORTED_FIELDS
from finrpa.audit.models import AuditChainHead, AuditRecord
from finrpa.tenancy import TenantContextMissingError, TenantMismatchError, current_tenant

_RECORDS: Table = AuditRecord.__table__  # type: ignore[assignment]
_RECORD_COLUMNS: tuple[str, ...] = (*SORTED_FIELDS, "row_hash")
_NOW = bindparam("now", type_=DateTime(timezone=True))

# Upsert-and-lock of the chain head (the same SQL on PostgreSQL and SQLite ≥ 3.35).
_LOCK_HEAD = text(
    "INSERT INTO audit_chain_heads (org_id, seq, row_hash, updated_at) VALUES (:org_id, 0, :genesis, :now) "
    "ON CONFLICT (org_id) DO UPDATE SET updated_at = excluded.updated_at RETURNING seq, row_hash"
).bindparams(_NOW)

_HEAD_UPDATE = (
    "UPDATE audit_chain_heads SET seq = :head_seq, row_hash = :head_hash, updated_at = :now WHERE org_id = :head_org"
)
_ADVANCE_HEAD = text(_HEAD_UPDATE).bindparams(_NOW)


def _pg_array_type(name: str) -> str:
    """The array type of a column without its length: a CAST to VARCHAR(n) would silently truncate, while the
    INSERT's assignment to the VARCHAR(n) column refuses a value that is too long."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    return re.sub(r"\(\d+\)", "", str(_RECORDS.c[name].type.compile(dialect=dialect))) + "[]"


def _pg_append_sql() -> str:
    """One INSERT of every column from arrays, plus the head update. Names and types come from the model."""
    columns = ", ".join(_RECORD_COLUMNS)
    arrays = ", ".join(f"CAST(:{name} AS {_pg_array_type(name)})" for name in _RECORD_COLUMNS)
    return f"WITH appended AS (INSERT INTO audit_records ({columns}) SELECT * FROM unnest({arrays})) {_HEAD_UPDATE}"  # noqa: S608


_PG_APPEND = text(_pg_append_sql()).bindparams(_NOW)


@dataclass(frozen=True, slots=True)
class ChainHead:
    seq: int
    row_hash: str


@dataclass(frozen=True)
class RecordFilter:
    """Search criteria; every field narrows the result (None = no restriction)."""

    task_id: str | None = None
    user_id: str | None = None
    dept_id: str | None = None
    action_types: tuple[str, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None
    before_seq: int | None = None  # keyset cursor: only rows older than this seq


class AuditRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def lock_chain_head(self, org_id: str, now: datetime) -> ChainHead:
        """Create the organisation's chain head if needed and lock it until the transaction ends.

        One upsert does both: on PostgreSQL ``ON CONFLICT DO UPDATE`` takes the row lock (concurrent appends
        of the same organisation wait here and then see the new head); on SQLite it is the first write of
        the transaction, which takes the database's single writer lock before anything is read.
        """
        _check_write(org_id)
        values = {"org_id": org_id, "genesis": GENESIS_HASH, "now": now}
        row = (await self._session.execute(_LOCK_HEAD, values)).one()
        return ChainHead(seq=row.seq, row_hash=row.row_hash)

    async def append_rows(self, org_id: str, rows: Sequence[Mapping[str, Any]], head: ChainHead, now: datetime) -> None:
        """Insert chained rows of ``org_id`` and move its (locked) chain head to ``head``.

        PostgreSQL: ONE statement — the rows travel as one array per column (``unnest``), so the SQL text and
        its prepared statement are the same for any batch size, and the head update rides along in the same
        statement (a data-modifying CTE). SQLite: one executemany INSERT and one UPDATE (no round trips there).
        These are Core statements, so the tenancy hook does not see them: :func:`_check_write` applies its
        rule here, and on PostgreSQL Row-Level Security checks every row again (WITH CHECK).
        """
        _check_write(org_id)
        if any(row["org_id"] != org_id for row in rows):
            raise TenantMismatchError("Refusing to append an audit row of another organisation to this chain.")
        head_values = {"head_org": org_id, "head_seq": head.seq, "head_hash": head.row_hash, "now": now}
        if self._session.get_bind().dialect.name == "postgresql":
            arrays = {name: [row[name] for row in rows] for name in _RECORD_COLUMNS}
            await self._session.execute(_PG_APPEND, arrays | head_values)
            return
        await self._session.execute(_RECORDS.insert(), [dict(row) for row in rows])
        await self._session.execute(_ADVANCE_HEAD, head_values)

    async def chain_head(self, org_id: str) -> ChainHead | None:
        statement = select(AuditChainHead.seq, AuditChainHead.row_hash).where(AuditChainHead.org_id == org_id)
        row = (await self._session.execute(statement)).one_or_none()
        return None if row is None else ChainHead(seq=row.seq, row_hash=row.row_hash)

    async def chain_batches(
        self, org_id: str, batch_size: int = 5000, *, after_seq: int | None = None
    ) -> AsyncGenerator[Sequence[Any]]:
        """Every row of the organisation (only those with seq > ``after_seq`` if given) as (SORTED_FIELDS…,
        row_hash) sequences in (seq, id) order.

        Core SQL, not the ORM, so the tenancy hook does not see it: the same rule is applied here — no rows
        unless the current context may see ``org_id`` — and Row-Level Security applies on PostgreSQL as for
        every statement. On PostgreSQL the rows come through asyncpg's cursor on the session's own connection
        (same transaction, same role and tenant settings), the next batch already requested while the caller
        checks the current one; elsewhere through SQLAlchemy with keyset pagination.
        """
        if not _context_sees(org_id):
            return
        connection = await self._session.connection()
        if connection.dialect.name == "postgresql" and connection.dialect.driver == "asyncpg":
            raw = (await connection.get_raw_connection()).driver_connection
            async for rows in pg_chain_batches(raw, org_id, after_seq, None, batch_size):
                yield rows
            return
        table = AuditRecord.__table__
        columns = [table.c[name] for name in _RECORD_COLUMNS]
        last: tuple[int, str] | None = None
        while True:
            statement = select(*columns).where(table.c.org_id == org_id)
            if after_seq is not None:
                statement = statement.where(table.c.seq > after_seq)
            if last is not None:
                seq, row_id = last
                statement = statement.where(or_(table.c.seq > seq, and_(table.c.seq == seq, table.c.id > row_id)))
            statement = statement.order_by(table.c.seq, table.c.id).limit(batch_size)
            rows = (await self._session.execute(statement)).all()
            if not rows:
                return
            yield rows
            last = (rows[-1].seq, rows[-1].id)
            if len(rows) < batch_size:
                return

    @staticmethod
    def context_sees(org_id: str) -> bool:
        """Whether the current tenant context may read ``org_id``'s audit rows."""
        return _context_sees(org_id)

    async def by_seq(self, org_id: str, seq: int) -> AuditRecord | None:
        statement = select(AuditRecord).where(AuditRecord.org_id == org_id, AuditRecord.seq == seq)
        return (await self._session.execute(statement)).scalars().first()

    async def search(self, org_id: str, criteria: RecordFilter, limit: int) -> list[AuditRecord]:
        """Newest first; at most ``limit`` rows."""
        statement = _filtered(select(AuditRecord), org_id, criteria)
        statement = statement.order_by(AuditRecord.seq.desc()).limit(limit)
        return list((await self._session.execute(statement)).scalars().all())

    async def matching_in_order(self, org_id: str, criteria: RecordFilter, limit: int) -> list[AuditRecord]:
        """Oldest first (for exports); at most ``limit`` rows."""
        statement = _filtered(select(AuditRecord), org_id, criteria).order_by(AuditRecord.seq).limit(limit)
        return list((await self._session.execute(statement)).scalars().all())

    async def chain_heads(self) -> dict[str, int]:
        """Every organisation's head seq (needs a cross-organisation system context)."""
        rows = (await self._session.execute(select(AuditChainHead.org_id, AuditChainHead.seq))).all()
        return {row.org_id: row.seq for row in rows}

    async def org_ids(self) -> list[str]:
        """Organisations with an audit trail (needs a cross-organisation system context)."""
        heads = select(AuditChainHead.org_id)
        records = select(AuditRecord.org_id).distinct()
        found = set((await self._session.execute(heads)).scalars().all())
        found.update((await self._session.execute(records)).scalars().all())
        return sorted(found)


_PG_CHAIN = (
    f"SELECT {', '.join(_RECORD_COLUMNS)} FROM audit_records "  # noqa: S608  # constant column names
    "WHERE org_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq, id"
)
_SEQ_MIN, _SEQ_MAX = -(2**63), 2**63 - 1


async def pg_chain_batches(
    raw: Any, org_id: str, after_seq: int | None, upto_seq: int | None, batch_size: int
) -> AsyncGenerator[Sequence[Any]]:
    """Rows of ``org_id`` with ``after_seq < seq <= upto_seq`` (open bounds: None) on an asyncpg connection inside
    a transaction; the next batch is fetched while the caller works on the current one."""
    low = _SEQ_MIN if after_seq is None else after_seq
    high = _SEQ_MAX if upto_seq is None else upto_seq
    cursor = await raw.cursor(_PG_CHAIN, org_id, low, high)
    pending = asyncio.ensure_future(cursor.fetch(batch_size))
    try:
        while True:
            rows = await pending
            if not rows:
                return
            pending = asyncio.ensure_future(cursor.fetch(batch_size))
            yield rows
    finally:
        # Let an outstanding fetch finish rather than cancel it: a cancelled query aborts the caller's transaction.
        with contextlib.suppress(Exception):
            await asyncio.shield(pending)


def _check_write(org_id: str) -> None:
    """The tenancy hook's rule for writes, for the Core statements above: a context that may act for ``org_id``."""
    context = current_tenant()
    if context is None:
        raise TenantContextMissingError(
            "Cannot append audit rows without a tenant context; act inside use_tenant(...) or system_context(reason)."
        )
    if context.org_id is not None and context.org_id != org_id:
        raise TenantMismatchError(
            f"Refusing to append audit rows of another organisation while acting for organisation {context.org_id}."
        )


def _context_sees(org_id: str) -> bool:
    context = current_tenant()
    return context is not None and ((context.org_id is None and context.is_system) or context.org_id == org_id)


def _filtered(statement: Select[Any], org_id: str, criteria: RecordFilter) -> Select[Any]:
    statement = statement.where(AuditRecord.org_id == org_id)
    if criteria.task_id is not None:
        statement = statement.where(AuditRecord.task_id == criteria.task_id)
    if criteria.user_id is not None:
        user = criteria.user_id
        statement = statement.where(
            or_(
                AuditRecord.user_id == user,
                AuditRecord.approver_user_id == user,
                AuditRecord.executor == f"human:{user}",
            )
        )
    if criteria.dept_id is not None:
        statement = statement.where(AuditRecord.dept_id == criteria.dept_id)
    if criteria.action_types:
        statement = statement.where(AuditRecord.action_type.in_(criteria.action_types))
    if criteria.since is not None:
        statement = statement.where(AuditRecord.created_at >= criteria.since.astimezone(UTC))
    if criteria.until is not None:
        statement = statement.where(AuditRecord.created_at < criteria.until.astimezone(UTC))
    if criteria.before_seq is not None:
        statement = statement.where(AuditRecord.seq < criteria.before_seq)
    return statement
