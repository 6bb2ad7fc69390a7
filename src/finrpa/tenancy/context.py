"""Who the current code acts for: a TenantContext held in a ContextVar, set per request, run step or job.

``use_tenant(ctx)`` binds a context for a block; ``current_tenant()`` reads it; ``system_context(reason)``
is the one explicit way to act without a user (workers, the CLI, login before the user is known). Every
system context is logged with its reason, counted, and its reason is written into the database
transaction (``finrpa.context_reason``) so triggers and the audit trail can see it.

Context variables are copied into ``asyncio`` tasks and into ``asyncio.to_thread`` work automatically, so a
context set in a request reaches the thread that does its blocking work. A thread started by hand
(``threading.Thread``) does not inherit it: use ``contextvars.copy_context().run``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from prometheus_client import Counter

from finrpa.tenancy.errors import TenantContextMissingError

logger = logging.getLogger(__name__)

SYSTEM_CONTEXT_USES = Counter(
    "finrpa_system_context_total", "System (non-user) tenant contexts entered, by scope.", ["scope"]
)

_current: ContextVar[TenantContext | None] = ContextVar("finrpa_tenant", default=None)


@dataclass(frozen=True, slots=True)
class TenantContext:
    """The organisation (and, for users, the departments and business lines) the current code may see.

    ``org_id`` is None only for a cross-organisation system context. ``org_wide`` lifts the
    department/business-line filter (org admins, cross-department readers). ``reason`` says why the
    context exists; it is mandatory for system contexts.
    """

    org_id: str | None
    user_id: str | None = None
    visible_department_ids: frozenset[str] = field(default_factory=frozenset)
    visible_business_line_ids: frozenset[str] = field(default_factory=frozenset)
    org_wide: bool = False
    is_system: bool = False
    reason: str = ""

    def __post_init__(self) -> None:
        if self.org_id is None and not self.is_system:
            raise ValueError("A user TenantContext needs an org_id; only system contexts may span organisations.")
        if self.is_system and not self.reason.strip():
            raise ValueError("A system context needs a reason that says which job or command uses it.")

    @property
    def spans_organisations(self) -> bool:
        return self.org_id is None

    @property
    def filters_departments(self) -> bool:
        """True when rows of departments/lines outside the visible sets must be hidden."""
        return not (self.org_wide or self.is_system)


def current_tenant() -> TenantContext | None:
    """The context in force, or None (then tenant-scoped reads return no rows and writes fail)."""
    return _current.get()


def require_tenant() -> TenantContext:
    """The context in force; raises when there is none."""
    ctx = _current.get()
    if ctx is None:
        raise TenantContextMissingError(
            "No tenant context is set. Wrap the work in finrpa.tenancy.use_tenant(...) for a user, or "
            "finrpa.tenancy.system_context(reason) for a job."
        )
    return ctx


@contextmanager
def use_tenant(ctx: TenantContext) -> Iterator[TenantContext]:
    """Act for ``ctx`` inside the block (works in sync and async code, nests, restores on exit)."""
    token = _current.set(ctx)
    try:
        yield ctx
    finally:
        _current.reset(token)


@contextmanager
def system_context(reason: str, *, org_id: str | None = None) -> Iterator[TenantContext]:
    """Act as the platform, explicitly and on the record.

    With ``org_id`` the context is bound to that one organisation (the usual case for a worker resuming a
    run); without it the context sees every organisation (schedulers, key rotation, login look-up).
    """
    ctx = TenantContext(org_id=org_id, org_wide=True, is_system=True, reason=reason)
    scope = "cross_org" if org_id is None else "one_org"
    SYSTEM_CONTEXT_USES.labels(scope=scope).inc()
    logger.info("system tenant context entered", extra={"reason": reason, "org_id": org_id, "scope": scope})
    with use_tenant(ctx):
        yield ctx
