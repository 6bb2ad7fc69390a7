"""TenantContext travels with the work: into tasks and asyncio.to_thread, and never leaks out of its block."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from finrpa.tenancy import TenantContext, TenantContextMissingError, current_tenant, system_context, use_tenant
from finrpa.tenancy.context import require_tenant

BANK_A = TenantContext(org_id="org-a", user_id="u1", visible_department_ids=frozenset({"ops"}))
BANK_B = TenantContext(org_id="org-b", user_id="u2")


async def test_context_reaches_to_thread_work_and_tasks() -> None:
    with use_tenant(BANK_A):
        assert await asyncio.to_thread(current_tenant) == BANK_A
        assert await asyncio.create_task(asyncio.sleep(0, result=None)) is None
        assert await asyncio.create_task(_read_later()) == BANK_A
    assert current_tenant() is None


async def _read_later() -> TenantContext | None:
    await asyncio.sleep(0)
    return current_tenant()


async def test_concurrent_requests_keep_their_own_tenant() -> None:
    async def handle(ctx: TenantContext) -> list[str | None]:
        seen = []
        with use_tenant(ctx):
            for _ in range(5):
                await asyncio.sleep(0)
                tenant = current_tenant()
                seen.append(tenant.org_id if tenant else None)
        return seen

    a, b = await asyncio.gather(handle(BANK_A), handle(BANK_B))
    assert set(a) == {"org-a"} and set(b) == {"org-b"}


def test_a_plain_thread_does_not_inherit_unless_the_context_is_copied() -> None:
    seen: list[TenantContext | None] = []
    with use_tenant(BANK_A):
        plain = threading.Thread(target=lambda: seen.append(current_tenant()))
        copied = contextvars.copy_context()
        carried = threading.Thread(target=lambda: seen.append(copied.run(current_tenant)))
        for thread in (plain, carried):
            thread.start()
            thread.join()
    assert seen == [None, BANK_A]


def test_nested_contexts_restore_the_outer_one_even_after_an_error() -> None:
    with use_tenant(BANK_A):
        with pytest.raises(RuntimeError), use_tenant(BANK_B):
            raise RuntimeError("boom")
        assert current_tenant() == BANK_A


def test_system_context_needs_a_reason_and_user_contexts_need_an_org() -> None:
    with pytest.raises(ValueError, match="reason"), system_context("  "):
        pass
    with pytest.raises(ValueError, match="org_id"):
        TenantContext(org_id=None)
    with system_context("nightly schedule scan") as ctx:
        assert ctx.spans_organisations and ctx.is_system and not ctx.filters_departments
    with system_context("resume run", org_id="org-a") as ctx:
        assert ctx.org_id == "org-a" and not ctx.spans_organisations


def test_require_tenant_says_what_to_do() -> None:
    with pytest.raises(TenantContextMissingError, match="use_tenant"):
        require_tenant()
