"""The router on both stores: a page where LIGHT keeps failing is promoted; decisions are stored with
their features in the database."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from finrpa.cache import KeyValueStore
from finrpa.db.engine import unit_of_work
from finrpa.llm import (
    DatabaseDecisionSink,
    ModelRouter,
    PageFeatures,
    RouterThresholds,
    RoutingDecision,
    Tier,
    count_router_decisions,
)
from finrpa.llm.models import RouterDecision
from finrpa.tenancy import TenantContext, open_tenant_database, use_tenant

SIMPLE = PageFeatures(element_count=80, iframe_depth=0, has_shadow_dom=False, form_field_count=3, dynamic_content=False)
MODERATE = SIMPLE.model_copy(update={"has_shadow_dom": True})
COMPLEX = SIMPLE.model_copy(update={"iframe_depth": 2, "element_count": 900})


class ListSink:
    def __init__(self) -> None:
        self.stored: list[tuple[str, str | None, RoutingDecision]] = []

    async def store(self, org_id: str, run_id: str | None, decision: RoutingDecision) -> None:
        self.stored.append((org_id, run_id, decision))


async def test_tiers_follow_complexity(key_value_store: KeyValueStore) -> None:
    router = ModelRouter(key_value_store, RouterThresholds())
    assert (await router.route("org-a", "sig", SIMPLE)).tier is Tier.LIGHT
    assert (await router.route("org-a", "sig", MODERATE)).tier is Tier.STANDARD
    decision = await router.route("org-a", "sig", COMPLEX)
    assert decision.tier is Tier.HEAVY and decision.signals == ("element_count", "iframe_depth")


async def test_a_page_where_light_keeps_failing_is_promoted(key_value_store: KeyValueStore) -> None:
    sink = ListSink()
    router = ModelRouter(key_value_store, RouterThresholds(promote_after_failures=3), sink)
    for _ in range(2):
        assert (await router.route("org-a", "statement-page", SIMPLE)).tier is Tier.LIGHT
        await router.record_outcome("org-a", "statement-page", Tier.LIGHT, ok=False)
    await router.record_outcome("org-a", "statement-page", Tier.LIGHT, ok=True)  # a success does not reset
    await router.record_outcome("org-a", "statement-page", Tier.LIGHT, ok=False)

    promoted = await router.route("org-a", "statement-page", SIMPLE, run_id="run-9")
    assert promoted.tier is Tier.STANDARD and promoted.promoted
    assert (await router.route("org-a", "login-page", SIMPLE)).tier is Tier.LIGHT  # other pages keep LIGHT
    assert (await router.route("org-b", "statement-page", SIMPLE)).tier is Tier.LIGHT  # other orgs too
    assert sink.stored[2][:2] == ("org-a", "run-9") and sink.stored[2][2].features == SIMPLE

    for _ in range(3):  # STANDARD failing on the same page promotes it once more
        await router.record_outcome("org-a", "statement-page", Tier.STANDARD, ok=False)
    assert (await router.route("org-a", "statement-page", SIMPLE)).tier is Tier.HEAVY


async def test_decisions_are_stored_with_their_features(
    migrated_database_url: str, key_value_store: KeyValueStore
) -> None:
    database = open_tenant_database(migrated_database_url)
    try:
        sink = DatabaseDecisionSink(database.sessions)
        router = ModelRouter(key_value_store, RouterThresholds(promote_after_failures=1), sink)
        await router.route("org-a", "p1", SIMPLE, run_id="run-1")  # a worker without a tenant context
        await router.record_outcome("org-a", "p1", Tier.LIGHT, ok=False)
        with use_tenant(TenantContext(org_id="org-a", user_id="u1", org_wide=True)):
            await router.route("org-a", "p1", SIMPLE, run_id="run-1")
            await router.route("org-a", "p2", COMPLEX, run_id="run-1")
        await router.route("org-b", "p2", COMPLEX)

        with use_tenant(TenantContext(org_id="org-a", user_id="u1", org_wide=True)):
            async with unit_of_work(database.sessions) as session:
                counts = await count_router_decisions(session, "org-a", since=datetime.now(UTC).date())
                rows = (
                    (await session.execute(select(RouterDecision).where(RouterDecision.page_signature == "p2")))
                    .scalars()
                    .all()
                )
    finally:
        await database.dispose()

    summary = {(c.tier, c.complexity, c.promoted): c.decisions for c in counts}
    assert summary == {("light", "simple", False): 1, ("standard", "simple", True): 1, ("heavy", "complex", False): 1}
    [row] = rows  # org-b's decision on p2 is not visible to org-a
    assert (row.org_id, row.run_id, row.element_count, row.iframe_depth) == ("org-a", "run-1", 900, 2)
    assert (row.has_shadow_dom, row.form_field_count, row.dynamic_content) == (False, 3, False)
