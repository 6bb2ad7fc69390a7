"""The demo organisation — called only by ``finrpa demo`` and tests, never by a production code path.

``seed_demo_org`` creates one organisation with the bank-operations department (运营部), a business line,
and four people whose roles show maker-checker and dual control: an operator, two approvers and an auditor.
Passwords are random unless given, and are returned once (the caller shows them); they are stored only as hashes.
Calling it again returns the existing ids with no passwords.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.config import Settings
from finrpa.identity.models import Role
from finrpa.identity.passwords import generate_password
from finrpa.identity.permissions import Principal
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService, NewUser
from finrpa.tenancy.context import system_context

DEMO_DEPARTMENT = "bank-ops"
DEMO_BUSINESS_LINE = "corporate"
DEMO_PEOPLE: tuple[tuple[str, str, Role], ...] = (
    ("operator", "经办员 Operator", Role.OPERATOR),
    ("approver", "复核员 Approver", Role.APPROVER),
    ("approver2", "复核员二 Second approver", Role.APPROVER),
    ("auditor", "稽核员 Auditor", Role.AUDITOR),
)


@dataclass(frozen=True)
class DemoOrg:
    org_id: str
    slug: str
    department_id: str
    business_line_id: str
    user_ids: Mapping[str, str]  # username → id
    passwords: Mapping[str, str] = field(default_factory=dict)  # only when just created
    created: bool = True


async def seed_demo_org(
    session: AsyncSession,
    settings: Settings,
    *,
    slug: str = "demo-bank",
    name: str = "演示银行 Demo Bank",
    passwords: Mapping[str, str] | None = None,
) -> DemoOrg:
    """Create (or find) the demo organisation; see the module docstring."""
    directory = DirectoryService(session, settings)
    with system_context("demo seed: organisation"):
        existing = await IdentityRepository(session).organization_by_slug(slug)
        if existing is not None:
            return await _existing(directory, existing.id, slug)
        org = await directory.create_organization(Principal.platform("-", "demo seed"), slug=slug, name=name)
    with system_context("demo seed", org_id=org.id):
        actor = Principal.platform(org.id, "demo seed")
        department = await directory.create_department(actor, org.id, code=DEMO_DEPARTMENT, name="运营部")
        line = await directory.create_business_line(actor, org.id, code=DEMO_BUSINESS_LINE, name="对公业务")
        chosen = {username: (passwords or {}).get(username) or generate_password() for username, _, _ in DEMO_PEOPLE}
        user_ids: dict[str, str] = {}
        for username, display_name, role in DEMO_PEOPLE:
            user = await directory.create_user(
                actor, org.id, NewUser(username=username, display_name=display_name, password=chosen[username])
            )
            await directory.grant_role(actor, user, department, role)
            await directory.add_to_business_line(actor, user, line)
            user_ids[username] = user.id
    return DemoOrg(org.id, slug, department.id, line.id, user_ids, chosen)


async def _existing(directory: DirectoryService, org_id: str, slug: str) -> DemoOrg:
    with system_context("demo seed: existing organisation", org_id=org_id):
        department = await directory.department_by_code(org_id, DEMO_DEPARTMENT)
        line = await directory.business_line_by_code(org_id, DEMO_BUSINESS_LINE)
        user_ids = {username: (await directory.user_by_username(org_id, username)).id for username, _, _ in DEMO_PEOPLE}
    return DemoOrg(org_id, slug, department.id, line.id, user_ids, {}, created=False)
