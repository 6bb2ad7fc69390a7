"""The notify branch migrates up and down cleanly, and PostgreSQL Row-Level Security guards its tables."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, select

from finrpa.config import get_settings
from finrpa.db.engine import create_engine, unit_of_work
from finrpa.db.migrate import downgrade, upgrade
from finrpa.notify import service
from finrpa.notify.models import NotifyChannel
from finrpa.notify.schemas import ChannelCreate
from finrpa.tenancy import TenantContext, open_tenant_database, use_tenant


async def _notify_tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    finally:
        await engine.dispose()
    return {name for name in names if name.startswith("notify_")}


async def test_notify_branch_upgrades_downgrades_and_upgrades_again(database_url: str) -> None:
    await upgrade(database_url, "notify@head")
    assert await _notify_tables(database_url) == {"notify_channels", "notify_deliveries"}

    await downgrade(database_url, "notify@base")
    assert await _notify_tables(database_url) == set()

    await upgrade(database_url, "notify@head")
    assert await _notify_tables(database_url) == {"notify_channels", "notify_deliveries"}


async def test_row_level_security_hides_other_tenants_rows_with_the_orm_filter_off(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("Row-Level Security is PostgreSQL's wall; SQLite relies on the ORM filter")
    await upgrade(database_url, "notify@head")
    rls_only = open_tenant_database(database_url, orm_filter=False)
    create = ChannelCreate(name="ops", config={"kind": "wecom", "url": "https://qyapi.weixin.qq.com/x"})
    try:
        for org_id in ("org-a", "org-b"):
            with use_tenant(TenantContext(org_id=org_id, org_wide=True)):
                async with unit_of_work(rls_only.sessions) as session:
                    await service.add_channel(session, org_id, create, get_settings())
        with use_tenant(TenantContext(org_id="org-b", org_wide=True)):
            async with unit_of_work(rls_only.sessions) as session:
                visible = (await session.scalars(select(NotifyChannel))).all()
    finally:
        await rls_only.dispose()
    assert [channel.org_id for channel in visible] == ["org-b"]
