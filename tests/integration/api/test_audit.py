"""The audit trail over HTTP: auditors search, verify and export; screenshot links are signed and audited."""

from __future__ import annotations

import io
import zipfile

import httpx
import pytest

from finrpa.audit.events import AuditEntry
from finrpa.db.engine import unit_of_work
from finrpa.tenancy.context import system_context
from tests.integration.api.world import World

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64  # enough of a PNG for the object store


async def _action_row(world: World, org: str = "a", dept: str = "ops", card: str = "6222020200112233445") -> str:
    with system_context("test: an action with screenshots", org_id=world.orgs[org].id):
        async with unit_of_work(world.state.database.sessions) as session:
            appended = await world.state.audit.append(
                session,
                AuditEntry(
                    org_id=world.orgs[org].id,
                    action_type="INPUT_TEXT",
                    executor="agent",
                    dept_id=world.orgs[org].departments[dept],
                    target_element="卡号",
                    input_value=card,
                    screenshot_before=PNG,
                    screenshot_after=PNG,
                ),
            )
    return appended.id


async def test_auditors_search_masked_rows_and_operators_may_not(world: World) -> None:
    await _action_row(world)
    rows = await world.call("GET", "/api/v1/audit/records", "a", "auditor", params={"action_type": "INPUT_TEXT"})
    assert rows.status_code == 200, rows.text
    item = rows.json()["items"][0]
    assert item["input_value"] != "6222020200112233445" and str(item["input_value"]).endswith("3445")
    assert item["has_screenshot_before"] is True
    denied = await world.call("GET", "/api/v1/audit/records", "a", "operator")
    assert denied.status_code == 403
    one = await world.call("GET", f"/api/v1/audit/records/{item['id']}", "a", "auditor")
    assert one.status_code == 200 and one.json()["seq"] == item["seq"]


async def test_an_auditor_of_one_department_does_not_see_another_departments_rows(world: World) -> None:
    hidden = await _action_row(world, dept="risk")
    rows = await world.call("GET", "/api/v1/audit/records", "a", "auditor", params={"limit": 500})
    assert hidden not in {item["id"] for item in rows.json()["items"]}
    assert (await world.call("GET", f"/api/v1/audit/records/{hidden}", "a", "auditor")).status_code == 404
    assert (await world.call("GET", f"/api/v1/audit/records/{hidden}", "a", "admin")).status_code == 200


async def test_verify_reports_an_intact_chain(world: World) -> None:
    await _action_row(world)
    report = (await world.call("GET", "/api/v1/audit/verify", "a", "auditor")).json()
    assert report["ok"] is True and report["rows"] >= 1 and report["problem"] is None
    assert (await world.call("GET", "/api/v1/audit/verify", "a", "viewer")).status_code == 403


async def test_a_screenshot_link_downloads_the_png_and_is_itself_audited(world: World) -> None:
    record_id = await _action_row(world)
    link = await world.call(
        "POST", f"/api/v1/audit/records/{record_id}/links", "a", "operator", json={"phase": "after"}
    )
    assert link.status_code == 200, link.text
    url = httpx.URL(link.json()["url"])
    downloaded = await world.client.get(url.raw_path.decode())
    assert downloaded.status_code == 200 and downloaded.content == PNG
    forged = await world.client.get(url.copy_set_param("sig", "0" * 64).raw_path.decode())
    assert forged.status_code in (403, 404)
    issued = await world.call("GET", "/api/v1/audit/records", "a", "admin", params={"action_type": "LINK_ISSUED"})
    assert issued.json()["items"][0]["user_id"] == world.orgs["a"].users["operator"]


async def test_export_is_a_verifiable_zip_and_is_audited(world: World) -> None:
    await _action_row(world)
    dept = world.orgs["a"].departments["ops"]
    response = await world.call("POST", "/api/v1/audit/exports", "a", "auditor", json={"dept_id": dept})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert {"manifest.json", "manifest.sig", "rows.jsonl", "checkpoint.json"} <= set(names)
    assert any(name.startswith("screenshots/") for name in names)
    whole_org = await world.call("POST", "/api/v1/audit/exports", "a", "auditor", json={})
    assert whole_org.status_code == 403, "a department auditor exports only their department"
    exports = await world.call("GET", "/api/v1/audit/records", "a", "admin", params={"action_type": "EXPORT"})
    assert exports.json()["items"], "the export is an audit event"
