"""What the run layer, the API and auditors get from AuditService: masked rows, keyed hashes, screenshots,
audited links and value checks, and a tenant-scoped search."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError

from finrpa.audit.events import AuditEntry
from finrpa.audit.masking import AUDITOR
from finrpa.audit.proofs import check_row_proof, prove_row
from finrpa.audit.schemas import AuditQuery
from finrpa.audit.service import AuditService
from finrpa.db.base import utcnow
from finrpa.exceptions import FinRPAError, ValidationFailedError
from finrpa.objectstore.local import LocalObjectStore
from finrpa.objectstore.router import local_object_store, router
from finrpa.tenancy import TenantContext, TenantContextMissingError, TenantMismatchError, system_context, use_tenant
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import append_rows, click, stored_rows, verify

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = b"\x89PNG\r\n\x1a\n" + b"evidence" * 64
CARD = "6222021234567890123"


async def _append(db: SharedDatabase, service: AuditService, entry: AuditEntry) -> int:
    with system_context("test", org_id=entry.org_id):
        async with db.app.sessions() as session, session.begin():
            return (await service.append(session, entry)).seq


async def test_stored_rows_never_hold_the_secret_or_the_full_number(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    entry = click(
        org_id,
        1,
        action_type="INPUT_TEXT",
        target_element="textbox 收款账号",
        input_value=CARD,
        raw_value=CARD,
        details={"form": {"password": "hunter2-secret", "payee_name": "王小明"}, "note": f"to {CARD}"},
    )
    await _append(shared_db, audit_service, entry)
    await _append(shared_db, audit_service, click(org_id, 2, input_value={"交易密码": "135790"}, raw_value="135790"))
    rows = await stored_rows(shared_db.owner, org_id)
    everything = repr(rows)
    for secret in (CARD, "hunter2-secret", "王小明", "135790"):
        assert secret not in everything
    assert rows[0]["input_value"] == '"***************0123"'
    assert '"password":"******"' in rows[0]["details"] and '"payee_name":"王**"' in rows[0]["details"]
    assert len(rows[0]["input_value_raw_hash"]) == 64


async def test_raw_value_hashes_are_keyed_per_organisation_and_checkable(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    other = f"{org_id}-b"
    for org in (org_id, other):
        await _append(shared_db, audit_service, click(org, 1, input_value=CARD, raw_value=CARD))
    hashes = {(await stored_rows(shared_db.owner, org))[0]["input_value_raw_hash"] for org in (org_id, other)}
    assert len(hashes) == 2  # the same card number hashes differently in two organisations
    with system_context("auditor check", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            assert await audit_service.check_value(session, org_id, 1, CARD, checked_by="auditor-1")
            assert not await audit_service.check_value(session, org_id, 1, CARD[:-1] + "4", checked_by="auditor-1")
    rows = await stored_rows(shared_db.owner, org_id)
    checks = [row for row in rows if row["action_type"] == "VALUE_CHECKED"]
    assert [row["executor"] for row in checks] == ["human:auditor-1", "human:auditor-1"]
    assert CARD not in repr(checks)  # the candidate value is never recorded


async def test_screenshots_are_stored_with_their_hash_and_served_by_audited_links(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    seq = await _append(
        shared_db, audit_service, click(org_id, 7, task_id="run-7", screenshot_before=PNG, screenshot_after=PNG[::-1])
    )
    row = (await stored_rows(shared_db.owner, org_id))[0]
    assert row["screenshot_before_key"].startswith(f"audit/{org_id}/run-7/7_before_")
    assert row["screenshot_after_key"].endswith(".png")
    assert row["screenshot_bucket"].startswith("finrpa-audit-")
    with system_context("api", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            link = await audit_service.issue_screenshot_link(session, org_id, seq, "before", issued_to="auditor-2")
    assert link.expires_at > utcnow() + timedelta(minutes=59)
    issued = (await stored_rows(shared_db.owner, org_id))[-1]
    assert (issued["action_type"], issued["executor"]) == ("LINK_ISSUED", "human:auditor-2")

    store = audit_service.objects
    assert isinstance(store, LocalObjectStore)
    app = FastAPI()
    app.include_router(router)
    app.dependency_overrides[local_object_store] = lambda: store

    @app.exception_handler(FinRPAError)
    async def _problem(_request: Request, exc: FinRPAError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.http_status)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as client:
        response = await client.get(link.url)
    assert response.status_code == 200 and response.content == PNG
    assert (await verify(shared_db.app, audit_service, org_id)).ok


async def test_search_filters_and_pages_newest_first(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 5, task_id="run-a")
    await append_rows(shared_db.app, audit_service, org_id, 3, task_id="run-b", executor="human:op-9", dept_id="dept-b")
    await _append(shared_db, audit_service, AuditEntry(org_id=org_id, action_type="LOGIN", user_id="op-9"))
    with system_context("search", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            search = audit_service.search
            by_task = await search(session, org_id, AuditQuery(task_id="run-a"))
            by_user = await search(session, org_id, AuditQuery(user_id="op-9"))
            by_type = await search(session, org_id, AuditQuery(action_types=["LOGIN"]))
            by_dept = await search(session, org_id, AuditQuery(dept_id="dept-b"))
            future = await search(session, org_id, AuditQuery(since=utcnow() + timedelta(hours=1)))
            seen, cursor = [], None
            while True:
                page = await search(session, org_id, AuditQuery(limit=4, cursor=cursor))
                seen += [item.seq for item in page.items]
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            with pytest.raises(ValidationFailedError, match="cursor"):
                await search(session, org_id, AuditQuery(cursor="not-a-cursor"))
    assert [item.seq for item in by_task.items] == [5, 4, 3, 2, 1]
    assert {item.seq for item in by_user.items} == {6, 7, 8, 9}
    assert [item.action_type for item in by_type.items] == ["LOGIN"]
    assert [item.seq for item in by_dept.items] == [8, 7, 6]
    assert future.items == []
    assert seen == list(range(9, 0, -1))


async def test_search_never_crosses_organisations_or_departments(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    other = f"{org_id}-x"
    await append_rows(shared_db.app, audit_service, other, 2)
    await append_rows(shared_db.app, audit_service, org_id, 2, dept_id="dept-a")
    await append_rows(shared_db.app, audit_service, org_id, 1, dept_id="dept-b")
    member = TenantContext(org_id=org_id, user_id="u1", visible_department_ids=frozenset({"dept-b"}))
    with use_tenant(member):
        async with shared_db.app.sessions() as session, session.begin():
            foreign = await audit_service.search(session, other, AuditQuery())
            own = await audit_service.search(session, org_id, AuditQuery())
    assert foreign.items == []
    assert [(item.seq, item.dept_id) for item in own.items] == [(3, "dept-b")]


async def test_viewers_see_their_profile_never_more_than_stored(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await _append(shared_db, audit_service, click(org_id, 1, input_value=f"卡号 {CARD}"))
    with system_context("search", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            strict = (await audit_service.search(session, org_id, AuditQuery())).items[0]
            auditor = (await audit_service.search(session, org_id, AuditQuery(), profile=AUDITOR)).items[0]
    assert strict.input_value == "卡号 ***************0123"
    assert auditor.input_value == strict.input_value  # the rows were stored with the strict profile


async def test_invalid_entries_are_refused_with_a_sentence(audit_service: AuditService, org_id: str) -> None:
    for entry in (
        click(org_id, 1, action_type="click"),
        click(org_id, 1, executor=""),
        click(org_id, 1, execution_result="x" * 65),
    ):
        with pytest.raises(ValidationFailedError):
            await audit_service.append(None, entry)  # type: ignore[arg-type]  # refused before any SQL


async def test_a_single_row_is_proven_in_the_signed_tree(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await append_rows(shared_db.app, audit_service, org_id, 5)
    with system_context("api", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            proof = await prove_row(audit_service, session, org_id, 3)
    public = audit_service.signing.public
    assert (proof.seq, proof.tree_size) == (3, 5)
    assert check_row_proof(proof, public) == []
    doctored = proof.model_copy(update={"row": {**proof.row, "user_id": "someone-else"}})
    assert "does not match its row_hash" in " ".join(check_row_proof(doctored, public))
    moved = proof.model_copy(update={"leaf_index": 1})
    assert check_row_proof(moved, public) == ["the audit path does not lead from the row to the checkpoint's root"]


async def test_a_batch_is_stored_exactly_as_hashed_in_one_chain(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    entries = [
        click(org_id, index, approval_id="ap-1" if index % 3 == 0 else None, has_approval=index % 3 == 0,
              bl_id=None if index % 2 else "bl-1", duration_ms=None if index == 5 else index,
              details={"说明": "批量", "n": index, "nested": [1, None, True]})
        for index in range(25)
    ]  # fmt: skip
    await _append(shared_db, audit_service, click(org_id, 0))
    with system_context("test batch", org_id=org_id):
        async with shared_db.app.sessions() as session, session.begin():
            appended = await audit_service.append_many(session, entries)
    assert [record.seq for record in appended] == list(range(2, 27))
    rows = await stored_rows(shared_db.owner, org_id)
    assert [row["row_hash"] for row in rows[1:]] == [record.row_hash for record in appended]
    assert [row["prev_hash"] for row in rows[1:]] == [row["row_hash"] for row in rows[:-1]]
    assert rows[6]["duration_ms"] is None and rows[4]["has_approval"] is True and rows[2]["bl_id"] is None
    report = await verify(shared_db.app, audit_service, org_id)
    assert report.ok and report.rows == 26


async def test_appends_stay_in_their_organisation(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    member = TenantContext(org_id=f"{org_id}-other", user_id="u1")
    with use_tenant(member):
        async with shared_db.app.sessions() as session, session.begin():
            with pytest.raises(TenantMismatchError):
                await audit_service.append(session, click(org_id, 1))
    with pytest.raises(TenantContextMissingError):
        async with shared_db.app.sessions() as session, session.begin():
            await audit_service.append(session, click(org_id, 1))
    assert await stored_rows(shared_db.owner, org_id) == []


async def test_a_value_too_long_for_its_column_is_refused_not_cut(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    too_long = click(org_id, 1, approval_id="a" * 65)
    if not shared_db.is_postgres:  # SQLite does not enforce VARCHAR lengths: the value is kept whole
        await _append(shared_db, audit_service, too_long)
        assert (await stored_rows(shared_db.owner, org_id))[0]["approval_id"] == "a" * 65
        return
    with system_context("test", org_id=org_id), pytest.raises(DBAPIError, match="too long"):
        async with shared_db.app.sessions() as session, session.begin():
            await audit_service.append(session, too_long)
    assert await stored_rows(shared_db.owner, org_id) == []
