"""Maker-checker in the database: one membership row cannot be operator and approver, whoever writes it."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from finrpa.db.base import new_id
from finrpa.db.engine import create_engine
from finrpa.identity.errors import MakerCheckerViolationError
from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import MAKER_CHECKER_MESSAGE, DirectoryService
from finrpa.tenancy import system_context
from tests.integration.tenancy.support import Backend, make_org

pytestmark = pytest.mark.asyncio(loop_scope="session")

INSERT = sa.text(
    "INSERT INTO department_memberships (id, org_id, user_id, department_id, dept_admin, operator, approver, "
    "auditor, viewer, created_at) VALUES (:id, :org, :user, :dept, false, :operator, :approver, false, false, "
    "CURRENT_TIMESTAMP)"
)


async def test_plain_sql_cannot_store_operator_and_approver_on_one_row(backend: Backend) -> None:
    fixture = await make_org(backend, {"maria": ()})
    values = {"org": fixture.org_id, "user": fixture.users["maria"].id, "dept": fixture.department.id}
    engine = create_engine(backend.url)  # the owner, no ORM, no service: only the database decides
    try:
        with pytest.raises(IntegrityError, match="maker_checker"):
            async with engine.begin() as connection:
                await connection.execute(INSERT, {**values, "id": new_id(), "operator": True, "approver": True})
        async with engine.begin() as connection:
            await connection.execute(INSERT, {**values, "id": new_id(), "operator": True, "approver": False})
        with pytest.raises(IntegrityError, match="maker_checker"):
            async with engine.begin() as connection:
                await connection.execute(
                    sa.text("UPDATE department_memberships SET approver = true WHERE user_id = :user"), values
                )
    finally:
        await engine.dispose()


async def test_granting_approver_to_an_operator_is_refused_with_a_sentence(backend: Backend) -> None:
    fixture = await make_org(backend, {"olga": (Role.OPERATOR,)})
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            directory = DirectoryService(session, backend.settings)
            user = await directory.user_by_username(fixture.org_id, "olga")
            with pytest.raises(MakerCheckerViolationError) as refused:
                await directory.grant_role(
                    Principal.platform(fixture.org_id, "test"), user, fixture.department, Role.APPROVER
                )
    assert str(refused.value) == MAKER_CHECKER_MESSAGE
    assert "cannot be operator and approver in the same department" in str(refused.value)


async def test_operator_in_one_department_may_approve_in_another(backend: Backend) -> None:
    fixture = await make_org(backend, {"olga": (Role.OPERATOR,)})
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            directory = DirectoryService(session, backend.settings)
            user = await directory.user_by_username(fixture.org_id, "olga")
            actor = Principal.platform(fixture.org_id, "test")
            membership = await directory.grant_role(actor, user, fixture.other_department, Role.APPROVER)
            principal = await directory.load_principal(user)
    assert membership.roles() == {Role.APPROVER}
    assert principal.roles_in(fixture.department.id) == {Role.OPERATOR}
    assert principal.roles_in(fixture.other_department.id) == {Role.APPROVER}
