"""Usage recording: every structured call (and every action-cache hit that replaced one) becomes a record.

:class:`UsageRecorder` is the port; :class:`DatabaseUsageRecorder` writes ``llm_calls`` rows in its own
transaction, :class:`LogUsageRecorder` writes one structured log line per call for embedded library use
without a database.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Protocol

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from finrpa.db.base import utcnow
from finrpa.db.engine import unit_of_work
from finrpa.exceptions import DatabaseUnavailableError
from finrpa.llm.repository import LLMCallRepository
from finrpa.llm.tenant_scope import writing_for
from finrpa.llm.tiers import Tier

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallContext:
    """Who a call is for: the organisation (always), and the department, template and run when known."""

    org_id: str
    dept_id: str | None = None
    template_id: str | None = None
    run_id: str | None = None


@dataclass(frozen=True)
class LLMCallRecord:
    context: CallContext
    tier: Tier
    model: str
    prompt_id: str
    prompt_version: int
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal
    latency_ms: int
    attempts: int
    success: bool
    cached: bool = False
    at: datetime = field(default_factory=utcnow)

    @property
    def day(self) -> date:
        return self.at.date()


class UsageRecorder(Protocol):
    async def record(self, record: LLMCallRecord) -> None: ...


class DatabaseUsageRecorder:
    """Writes ``llm_calls`` rows, each in its own short transaction.

    Give it the application's session factory (``finrpa.tenancy.open_tenant_database(url).sessions``); the
    row is written under the caller's tenant context, or a system context bound to the call's org_id.
    """

    def __init__(self, factory: async_sessionmaker[AsyncSession]) -> None:
        self._factory = factory

    async def record(self, record: LLMCallRecord) -> None:
        try:
            with writing_for(record.context.org_id, "record LLM usage"):
                async with unit_of_work(self._factory) as session:
                    LLMCallRepository(session).add_call(record)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailableError(
                f"Could not record LLM usage for org {record.context.org_id} ({type(exc).__name__}); the "
                "call itself completed. Check the database."
            ) from exc


class LogUsageRecorder:
    """One ``llm_call`` log line per call, for library use without a database."""

    async def record(self, record: LLMCallRecord) -> None:
        fields = asdict(record)
        fields.update(context=asdict(record.context), cost_usd=str(record.cost_usd), at=record.at.isoformat())
        logger.info("llm_call", extra={"llm_call": fields})
