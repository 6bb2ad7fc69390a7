"""The first wall: SQLAlchemy session classes that scope every ORM statement to the current tenant.

``install_tenancy(factory)`` makes an ``async_sessionmaker`` produce :class:`TenantSession`:

* ``do_orm_execute`` adds ``with_loader_criteria`` to every ORM SELECT, UPDATE and DELETE (including
  relationship and column loads): ``org_id == ctx.org_id`` for every ``TenantScoped`` model,
  ``id == ctx.org_id`` for the ``TenantRoot`` model, and the department/business-line rule for
  ``DepartmentScoped`` models. With no context the criterion is FALSE: no context means no rows.
* ``before_flush`` stamps ``org_id`` on new rows from the context (or, when the flush happens at commit
  after the ``with`` block, the context the transaction began in), refuses a row of another
  organisation (TenantMismatchError) and any tenant-scoped write without a context
  (TenantContextMissingError); ORM bulk INSERTs are checked the same way.
* ``after_begin`` (both session classes) runs ``set_config('finrpa.org_id', …, true)`` and friends on
  PostgreSQL at the start of every transaction: transaction-local, so a pooled connection reused for
  another tenant carries nothing over. This feeds the second wall, Row-Level Security
  (finrpa.db.migrations.rls). ``install_tenancy(factory, orm_filter=False)`` installs only this part —
  used by tests that show RLS holds on its own.

Core statements on ``Table`` objects and ``text()`` SQL do not pass through the ORM hook; on PostgreSQL
RLS still applies to them, on SQLite they are unfiltered — use ORM statements for tenant data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import event, false, inspect, or_, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction, with_loader_criteria
from sqlalchemy.sql.base import ExecutableOption
from sqlalchemy.sql.elements import ClauseElement

from finrpa.db.base import TenantScoped
from finrpa.db.migrations.rls import ORG_SETTING, SYSTEM_SETTING
from finrpa.tenancy.context import TenantContext, current_tenant
from finrpa.tenancy.errors import TenantContextMissingError, TenantMismatchError
from finrpa.tenancy.scoping import DepartmentScoped, TenantRoot

REASON_SETTING = "finrpa.context_reason"
_BOUND_KEY = "finrpa_tenant_bound"
_SET_CONFIG = text(
    f"SELECT set_config('{ORG_SETTING}', :org, true), set_config('{SYSTEM_SETTING}', :system, true), "
    f"set_config('{REASON_SETTING}', :reason, true)"
)


class RlsSession(Session):
    """A session that tells PostgreSQL, per transaction, which tenant it acts for (no ORM filter)."""


class TenantSession(RlsSession):
    """A session that also filters every ORM statement by the current tenant (the first wall)."""


def install_tenancy(factory: async_sessionmaker[AsyncSession], *, orm_filter: bool = True) -> None:
    """Make ``factory`` produce tenant-aware sessions (``orm_filter=False``: only the RLS settings)."""
    existing = factory.kw.get("sync_session_class")
    if existing not in (None, Session, RlsSession, TenantSession):
        raise TypeError(
            f"This session factory already uses {existing!r}; derive it from finrpa.tenancy.TenantSession "
            "instead of installing tenancy on top of it."
        )
    factory.configure(sync_session_class=TenantSession if orm_filter else RlsSession)


def _settings_for(ctx: TenantContext | None) -> dict[str, str]:
    if ctx is None:
        return {"org": "", "system": "", "reason": ""}
    system = "on" if ctx.is_system and ctx.org_id is None else ""
    return {"org": ctx.org_id or "", "system": system, "reason": ctx.reason[:200]}


def _bind_transaction(session: Session, connection: Connection) -> None:
    ctx = current_tenant()
    session.info[_BOUND_KEY] = ctx
    if connection.dialect.name == "postgresql":
        connection.execute(_SET_CONFIG, _settings_for(ctx))


@event.listens_for(RlsSession, "after_begin")
def _after_begin(session: Session, _transaction: SessionTransaction, connection: Connection) -> None:
    _bind_transaction(session, connection)


def _realign_database_settings(session: Session) -> None:
    """If the context changed inside an open transaction, move the PostgreSQL settings along with it."""
    if _BOUND_KEY not in session.info or session.info[_BOUND_KEY] == current_tenant():
        return
    _bind_transaction(session, session.connection())


def _flush_context(session: Session) -> TenantContext | None:
    """The context in force, or else the one the transaction began in.

    ``async with session.begin(): with use_tenant(ctx): session.add(...)`` flushes at commit, after the
    ``with`` block has ended; the rows still belong to the context that opened the transaction.
    """
    return current_tenant() or session.info.get(_BOUND_KEY)


@lru_cache(maxsize=1024)
def tenant_criteria(ctx: TenantContext | None) -> tuple[ExecutableOption, ...]:
    """The loader options that scope a statement to ``ctx`` (none for a cross-organisation system context).

    Built once per context (a context is immutable, and so are the options) rather than for every statement:
    building them analyses their lambdas, about a tenth of a statement by key on the embedded database."""
    if ctx is None:
        return (_criteria(TenantScoped, lambda cls: false()), _criteria(TenantRoot, lambda cls: false()))
    if ctx.org_id is None:
        return ()
    org_id = ctx.org_id
    options = [
        _criteria(TenantScoped, lambda cls: cls.org_id == org_id),
        _criteria(TenantRoot, lambda cls: cls.id == org_id),
    ]
    if ctx.filters_departments:
        departments = tuple(sorted(ctx.visible_department_ids))
        lines = tuple(sorted(ctx.visible_business_line_ids))
        options.append(
            _criteria(
                DepartmentScoped,
                lambda cls: or_(cls.dept_id.in_(departments), cls.bl_id.in_(lines)),
            )
        )
    return tuple(options)


def _criteria(entity: type[Any], where: Any) -> ExecutableOption:
    return with_loader_criteria(entity, where, include_aliases=True)


@event.listens_for(TenantSession, "do_orm_execute")
def _scope_statement(state: ORMExecuteState) -> Any:
    _realign_database_settings(state.session)
    if state.is_insert:
        return _check_bulk_insert(state)
    if state.is_select or state.is_update or state.is_delete:
        options = tenant_criteria(current_tenant())
        if options:
            state.statement = state.statement.options(*options)
    return None


def _check_bulk_insert(state: ORMExecuteState) -> Any:
    mapper = state.bind_mapper
    if mapper is None or not issubclass(mapper.class_, TenantScoped):
        return None
    ctx = current_tenant()
    rows = state.parameters
    if isinstance(rows, Mapping) and rows:
        return state.invoke_statement(params=_stamp_row(ctx, dict(rows), mapper.class_.__name__))
    if not isinstance(rows, list):
        statement = state.statement
        inline = statement.compile().params if isinstance(statement, ClauseElement) else {}
        _check_org(ctx, (inline.get("org_id"),), mapper.class_.__name__)
        return None
    stamped = [_stamp_row(ctx, dict(row), mapper.class_.__name__) for row in rows]
    return state.invoke_statement(params=stamped)


def _stamp_row(ctx: TenantContext | None, row: dict[str, Any], model: str) -> dict[str, Any]:
    if row.get("org_id") is None and ctx is not None and ctx.org_id is not None:
        row["org_id"] = ctx.org_id
    _check_org(ctx, (row.get("org_id"),), model)
    return row


def _check_org(ctx: TenantContext | None, org_ids: Iterable[object], model: str) -> None:
    if ctx is None:
        raise TenantContextMissingError(
            f"Cannot write {model} rows without a tenant context; act inside use_tenant(...) or system_context(reason)."
        )
    for org_id in org_ids:
        if org_id is None and ctx.org_id is None:
            raise TenantMismatchError(
                f"A {model} row written in a cross-organisation system context must name its org_id."
            )
        if ctx.org_id is not None and org_id not in (None, ctx.org_id):
            raise TenantMismatchError(
                f"Refusing to write a {model} row of another organisation while acting for organisation {ctx.org_id}."
            )


@event.listens_for(TenantSession, "before_flush")
def _stamp_and_check(session: Session, _context: Any, _instances: Any) -> None:
    ctx = _flush_context(session)
    for obj in session.new:
        if isinstance(obj, TenantScoped):
            if obj.org_id is None and ctx is not None and ctx.org_id is not None:
                obj.org_id = ctx.org_id
            _check_org(ctx, (obj.org_id,), type(obj).__name__)
        elif isinstance(obj, TenantRoot):
            _check_new_organisation(ctx, obj)
    for obj in (*session.dirty, *session.deleted):
        if isinstance(obj, TenantScoped):
            _check_org(ctx, (obj.org_id, _committed_org(obj)), type(obj).__name__)
        elif isinstance(obj, TenantRoot):
            _check_org(ctx, (obj.id,), type(obj).__name__)


def _check_new_organisation(ctx: TenantContext | None, obj: TenantRoot) -> None:
    if ctx is not None and ctx.org_id is None:
        return
    _check_org(ctx, (obj.id or "",), type(obj).__name__)


def _committed_org(obj: TenantScoped) -> object:
    """The org_id the row had in the database, so moving a row to another organisation is refused too."""
    history = inspect(obj).attrs.org_id.history
    return history.deleted[0] if history.deleted else obj.org_id
