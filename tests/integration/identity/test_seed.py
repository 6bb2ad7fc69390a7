"""The demo seed: one bank-operations department, maker-checker roles, passwords returned once."""

from __future__ import annotations

import pytest

from finrpa.db.base import new_id
from finrpa.identity.auth import AuthService
from finrpa.identity.permissions import Action, Resource, decide_permission
from finrpa.identity.seed import seed_demo_org
from tests.integration.tenancy.support import Backend

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_seeded_people_can_sign_in_with_separated_duties(backend: Backend) -> None:
    slug = f"demo-{new_id()[:8]}"
    async with backend.db.sessions() as session, session.begin():
        demo = await seed_demo_org(session, backend.settings, slug=slug)
    assert demo.created and set(demo.passwords) == {"operator", "approver", "approver2", "auditor"}
    auth = AuthService(backend.db.sessions, backend.settings)
    ops = Resource(demo.org_id, dept_id=demo.department_id, bl_id=demo.business_line_id)
    rights = {}
    for username, password in demo.passwords.items():
        principal = (await auth.authenticate((await auth.login(slug, username, password)).access_token)).principal
        rights[username] = {a for a in Action if decide_permission(principal, a, ops).allowed}
    assert rights == {
        "operator": {Action.READ, Action.OPERATE},
        "approver": {Action.READ, Action.APPROVE},
        "approver2": {Action.READ, Action.APPROVE},
        "auditor": {Action.READ, Action.AUDIT},
    }


async def test_seeding_again_finds_the_same_org_and_reveals_no_password(backend: Backend) -> None:
    slug = f"demo-{new_id()[:8]}"
    async with backend.db.sessions() as session, session.begin():
        first = await seed_demo_org(
            session, backend.settings, slug=slug, passwords={"operator": "maker-pass-for-tests-7"}
        )
    async with backend.db.sessions() as session, session.begin():
        again = await seed_demo_org(session, backend.settings, slug=slug)
    assert first.passwords["operator"] == "maker-pass-for-tests-7"
    assert (again.created, again.passwords, again.org_id, dict(again.user_ids)) == (
        False,
        {},
        first.org_id,
        dict(first.user_ids),
    )
