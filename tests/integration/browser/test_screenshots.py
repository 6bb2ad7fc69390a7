"""Screenshots mask passwords and card/ID numbers at capture time; secrets never reach a record."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from finrpa.browser import ActionIntent, ActionRecord, Controller, PageSnapshot, RunBrowser, SecretText
from finrpa.browser.screenshots import MASK_COLOR
from finrpa.browser.snapshot import ElementInfo
from finrpa.objectstore.port import StoredObject
from finrpa.runs.evidence import EvidenceRecorder, audit_entry_for_action
from tests.fixtures.browser import StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PASSWORD = "Tr0ub4dor&3-not-real"
CARD = "6222021234567890123"
MASK_RGB = tuple(int(MASK_COLOR[i : i + 2], 16) for i in (1, 3, 5))


class MemoryRecorder:
    def __init__(self) -> None:
        self.intents: list[ActionIntent] = []
        self.records: list[ActionRecord] = []

    async def intent(self, intent: ActionIntent) -> None:
        self.intents.append(intent)

    async def record(self, record: ActionRecord) -> None:
        self.records.append(record)


def _region_colours(png: bytes, element: ElementInfo) -> set[tuple[int, ...]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    x, y, w, h = element.bbox
    region = image.crop((x + 2, y + 2, x + w - 2, y + h - 2))
    return {tuple(c) for _, c in region.getcolors(maxcolors=100_000) or [] if isinstance(c, tuple)}


async def _login_page(
    run: RunBrowser, site: StaticSite, *, screenshots: bool
) -> tuple[MemoryRecorder, Controller, PageSnapshot]:
    recorder = MemoryRecorder()
    controller = Controller(run, recorder=recorder, screenshots=screenshots)
    await controller.navigate(site.url("login.html"))
    return recorder, controller, await controller.observe()


async def test_password_and_card_number_are_flat_boxes_in_the_after_screenshot(
    run_browser: RunBrowser, static_site: StaticSite, tmp_path: Path
) -> None:
    recorder, controller, snapshot = await _login_page(run_browser, static_site, screenshots=True)
    password, card, note = (snapshot.find(name=n)[0] for n in ("登录密码", "卡号", "备注"))

    await controller.fill(snapshot, password.ref, SecretText(PASSWORD))
    await controller.fill(snapshot, card.ref, CARD)
    await controller.fill(snapshot, note.ref, "普通备注 visible text")

    last = recorder.records[-1].screenshot_after
    assert last is not None
    (tmp_path / "login-filled.png").write_bytes(last.png)
    assert _region_colours(last.png, password) == {MASK_RGB}
    assert _region_colours(last.png, card) == {MASK_RGB}
    assert len(_region_colours(last.png, note)) > 2  # the ordinary field shows its text
    assert last.masked_regions >= 2


async def test_a_secret_typed_into_an_ordinary_field_is_masked_from_its_own_after_screenshot_on(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder, controller, snapshot = await _login_page(run_browser, static_site, screenshots=True)
    note = snapshot.find(name="备注")[0]

    await controller.fill(snapshot, note.ref, SecretText("普通字段里的口令"))
    await controller.settled()

    after = recorder.records[-1].screenshot_after
    assert after is not None
    assert _region_colours(after.png, note) == {MASK_RGB}


async def test_records_and_intents_never_carry_the_typed_secret(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder, controller, snapshot = await _login_page(run_browser, static_site, screenshots=False)

    await controller.fill(snapshot, snapshot.find(name="登录密码")[0].ref, SecretText(PASSWORD))
    await controller.fill(snapshot, snapshot.find(name="卡号")[0].ref, CARD)
    after = await controller.observe()

    dumps = [r.model_dump_json() for r in recorder.records] + [i.model_dump_json() for i in recorder.intents]
    assert all(PASSWORD not in d and CARD not in d for d in dumps)
    password_record, card_record = recorder.records[1], recorder.records[2]
    assert password_record.value_masked == "******"
    assert password_record.target is not None and password_record.target.name == "登录密码"
    assert card_record.value_masked == "*" * 15 + "0123"
    assert after.find(name="登录密码")[0].value == "******"
    assert PASSWORD not in after.model_dump_json() and CARD not in after.model_dump_json()
    assert repr(SecretText(PASSWORD)) == "SecretText('******')"


async def test_each_action_carries_before_and_after_screenshots_with_hashes(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder, controller, snapshot = await _login_page(run_browser, static_site, screenshots=True)
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "alice")

    fill = recorder.records[-1]
    assert fill.outcome == "ok" and fill.kind == "fill" and fill.value_masked == "alice"
    assert fill.screenshot_before is not None and fill.screenshot_after is not None
    assert fill.screenshot_before.png.startswith(b"\x89PNG")
    assert fill.screenshot_before.sha256 != fill.screenshot_after.sha256
    assert fill.duration_ms > 0


class MemoryStore:
    """An object store for screenshots that keeps what it is given (and counts the writes)."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    async def store_screenshot(
        self, org_id: str, task_id: str | None, action_index: int | None, phase: Any, png: bytes, *,
        bucket: str | None = None,
    ) -> StoredObject:
        key = f"audit/{org_id}/{task_id}/{action_index}_{phase}_{len(self.objects)}.png"
        self.objects[key] = png
        return StoredObject(bucket=bucket or "finrpa-audit-2025-01", key=key,
                            sha256=hashlib.sha256(png).hexdigest(), size=len(png))


async def test_an_unchanged_page_shares_the_previous_after_shot_and_a_changed_one_is_captured_again(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder, controller, snapshot = await _login_page(run_browser, static_site, screenshots=True)
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "alice")
    await controller.fill(snapshot, snapshot.find(name="备注")[0].ref, "first")
    first, second = recorder.records[-2:]
    assert first.screenshot_after is not None and second.screenshot_before is not None
    assert second.screenshot_before.shared_from == first.action_index
    assert second.screenshot_before.sha256 == first.screenshot_after.sha256

    # The portal's own script changes the page between two actions: the before-shot is taken afresh.
    page = run_browser.active_tab.page
    await page.evaluate("document.body.style.cssText += 'background: #fff8e0; min-height: 3000px'")
    await controller.fill(snapshot, snapshot.find(name="备注")[0].ref, "second")
    third = recorder.records[-1]
    assert third.screenshot_before is not None and third.screenshot_before.shared_from is None
    assert second.screenshot_after is not None
    assert third.screenshot_before.sha256 != second.screenshot_after.sha256

    # The page scrolls between two actions: captured afresh too.
    await page.evaluate("window.scrollTo(0, 20)")
    await controller.fill(snapshot, snapshot.find(name="备注")[0].ref, "third")
    assert recorder.records[-1].screenshot_before is not None
    assert recorder.records[-1].screenshot_before.shared_from is None


async def test_a_shared_before_shot_is_stored_once_and_both_audit_rows_name_the_same_object(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    store = MemoryStore()
    evidence = EvidenceRecorder(org_id="org1", run_id="run1", screenshots=store)
    controller = Controller(run_browser, recorder=evidence, screenshots=True)
    await controller.navigate(static_site.url("login.html"))
    snapshot = await controller.observe()
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "alice")
    await controller.fill(snapshot, snapshot.find(name="备注")[0].ref, "note")
    events = evidence.drain()
    rows = [audit_entry_for_action(e.payload, org_id="org1", run_id="run1", dept_id=None, bl_id=None) for e in events]
    fill_user, fill_note = rows[-2], rows[-1]
    assert fill_user.screenshot_after is not None and fill_note.screenshot_before is not None
    assert isinstance(fill_user.screenshot_after, StoredObject)
    assert isinstance(fill_note.screenshot_before, StoredObject)
    assert fill_note.screenshot_before.key == fill_user.screenshot_after.key
    assert fill_note.screenshot_before.sha256 == fill_user.screenshot_after.sha256
    assert fill_note.details is not None
    assert fill_note.details["screenshot_before_shared_from"] == fill_user.action_index
    navigate = rows[0]  # the first action's before-shot is its own
    assert navigate.details is not None and "screenshot_before_shared_from" not in navigate.details
    # Every row still has both shots, each stored object matches its hash, and the shared one was written once.
    assert all(row.screenshot_before is not None and row.screenshot_after is not None for row in rows)
    keys = [shot.key for row in rows for shot in (row.screenshot_before, row.screenshot_after)
            if isinstance(shot, StoredObject)]
    assert len(store.objects) == len(set(keys)) < len(keys)
    for row in rows:
        for shot in (row.screenshot_before, row.screenshot_after):
            assert isinstance(shot, StoredObject)
            assert hashlib.sha256(store.objects[shot.key]).hexdigest() == shot.sha256
