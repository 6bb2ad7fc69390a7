"""Declarative base with stable constraint names, and the mixins every domain model uses."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import DateTime, MetaData, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    """A random, URL-safe identifier used as primary key (UUID4 as 32 hex characters)."""
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


class TenantScoped:
    """Marks a model whose rows belong to one organisation.

    The tenancy hook adds ``org_id = <current org>`` to every SELECT/UPDATE/DELETE of such a model and
    stamps inserts; on PostgreSQL, Row-Level Security enforces the same rule again.
    """

    org_id: Mapped[str] = mapped_column(String(32), nullable=False, index=True)
