"""An organisation of requesters and approvers, and short calls for asking, deciding and waiting.

People (department ``ops`` unless said otherwise): olga operator (the requester), alice and bob approvers,
rita approver in ``risk`` only, vera viewer, xena viewer with CROSS_DEPT_APPROVE on ``ops``, oscar operator
with CROSS_DEPT_APPROVE on ``ops`` (maker-checker still refuses him).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from finrpa.approvals.models import ApprovalStatus
from finrpa.approvals.schemas import Approval
from finrpa.approvals.service import ApprovalService, approvals_transaction
from finrpa.approvals.waiter import WaitPolicy, wait_for_decision
from finrpa.audit.service import AuditService
from finrpa.bus.port import Bus
from finrpa.config import Settings
from finrpa.db.base import new_id
from finrpa.db.engine import unit_of_work
from finrpa.identity.models import GrantKind, Role
from finrpa.identity.permissions import Principal
from finrpa.identity.service import DirectoryService
from finrpa.notify import service as notify_service
from finrpa.notify.models import NotifyDelivery
from finrpa.notify.schemas import ChannelCreate
from finrpa.tenancy import system_context, use_tenant
from tests.integration.tenancy.support import Backend, OrgFixture, make_org, principal_of

REDIS_ENV = "FINRPA_TEST_REDIS_URL"
TRANSFER = {
    "skill": "FormFillSkill",
    "params": {"fields": {"收款账号": "6222021234567890", "金额": "1,500,000.00", "收款人": "张三丰"}},
}
PEOPLE: dict[str, tuple[Role, ...]] = {
    "olga": (Role.OPERATOR,),
    "alice": (Role.APPROVER,),
    "bob": (Role.APPROVER,),
    "vera": (Role.VIEWER,),
    "xena": (Role.VIEWER,),
    "oscar": (Role.OPERATOR,),
    "rita": (),
}


def redis_url() -> str | None:
    return os.environ.get(REDIS_ENV) or None


def closed_port_url() -> str:
    """A Redis URL nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


@dataclass
class Desk:
    """One organisation's approvals desk: ask as the run, decide as a person, wait as the worker."""

    backend: Backend
    org: OrgFixture
    principals: dict[str, Principal]
    audit: AuditService
    bus: Bus
    settings: Settings
    fast: WaitPolicy = field(default_factory=lambda: WaitPolicy(poll_initial_s=0.02, poll_max_s=0.2, recheck_s=60))

    @property
    def org_id(self) -> str:
        return self.org.org_id

    def user_id(self, name: str) -> str:
        return self.principals[name].user_id

    def as_run(self) -> Any:
        return system_context("test: run step", org_id=self.org_id)

    async def ask(
        self,
        level: str = "high",
        *,
        action: Mapping[str, object] = TRANSFER,
        run_id: str | None = None,
        subtask_id: str = "pay",
        requested_by: str | None = "olga",
        dept: str | None = "ops",
    ) -> Approval:
        requester = self.user_id(requested_by) if requested_by in self.principals else requested_by
        dept_id = {"ops": self.org.department.id, "risk": self.org.other_department.id, None: None}[dept]
        with self.as_run():
            async with self.transaction() as service:
                return await service.request(
                    run_id or new_id(), subtask_id, action, {"level": level, "reasons": [f"{level} test"]},
                    requested_by=requester, dept_id=dept_id, bl_id=None, org_id=self.org_id,
                )  # fmt: skip

    async def decide(self, name: str, approval_id: str, approve: bool = True, comment: str = "") -> Approval:
        principal = self.principals[name]
        with use_tenant(principal.tenant_context()):
            async with self.transaction() as service:
                return await service.decide(approval_id, principal, approve, comment)

    async def get(self, approval_id: str) -> Approval:
        with self.as_run():
            async with self.transaction() as service:
                return await service.get(approval_id)

    async def wait(self, approval_id: str, timeout_s: float | None = 10, **options: Any) -> ApprovalStatus:
        options.setdefault("policy", self.fast)
        with self.as_run():
            return await wait_for_decision(
                self.backend.db.sessions, options.pop("bus", self.bus), approval_id, timeout_s,
                audit=self.audit, settings=self.settings, **options,
            )  # fmt: skip

    def transaction(self, bus: Bus | None = None) -> Any:
        return approvals_transaction(self.backend.db.sessions, self.settings, audit=self.audit, bus=bus or self.bus)

    async def deliveries(self, kind: str) -> int:
        with self.as_run():
            async with unit_of_work(self.backend.db.sessions) as session:
                query = select(func.count()).where(NotifyDelivery.event_kind == kind)
                return int(await session.scalar(query) or 0)


async def open_desk(backend: Backend, bus: Bus, **settings: Any) -> Desk:
    org = await make_org(backend, PEOPLE)
    await _grant_extra(backend, org)
    principals = {name: await principal_of(backend, org, name) for name in PEOPLE}
    configured = backend.settings.model_copy(update=settings)
    await _subscribe_channel(backend, org, configured)
    return Desk(backend, org, principals, AuditService.from_settings(configured), bus, configured)


async def _grant_extra(backend: Backend, org: OrgFixture) -> None:
    async with backend.db.sessions() as session, session.begin():
        with system_context("test: extra roles", org_id=org.org_id):
            directory = DirectoryService(session, backend.settings)
            actor = Principal.platform(org.org_id, "test")
            await directory.grant_role(actor, org.users["rita"], org.other_department, Role.APPROVER)
            for name in ("xena", "oscar"):
                await directory.grant_special(actor, org.users[name], GrantKind.CROSS_DEPT_APPROVE, org.department)


async def _subscribe_channel(backend: Backend, org: OrgFixture, settings: Settings) -> None:
    create = ChannelCreate(name="approvers", config={"kind": "wecom", "url": "https://qyapi.weixin.qq.com/x"})
    with system_context("test: notification channel", org_id=org.org_id):
        async with unit_of_work(backend.db.sessions) as session:
            await notify_service.add_channel(session, org.org_id, create, settings)


def approval_service(desk: Desk, session: Any) -> ApprovalService:
    return ApprovalService(session, desk.settings, audit=desk.audit, bus=desk.bus)
