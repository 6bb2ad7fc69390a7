"""Screenshots mask passwords and card/ID numbers at capture time; secrets never reach a record."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from finrpa.browser import ActionIntent, ActionRecord, Controller, RunBrowser, SecretText
from finrpa.browser.screenshots import MASK_COLOR
from finrpa.browser.snapshot import ElementInfo
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
    return {c for _, c in region.getcolors(maxcolors=100_000) or []}


async def test_password_and_card_number_are_flat_boxes_in_the_after_screenshot(
    run_browser: RunBrowser, static_site: StaticSite, tmp_path: Path
) -> None:
    recorder = MemoryRecorder()
    controller = Controller(run_browser, recorder=recorder, screenshots=True)
    await controller.navigate(static_site.url("login.html"))
    snapshot = await controller.observe()
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


async def test_records_and_intents_never_carry_the_typed_secret(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    recorder = MemoryRecorder()
    controller = Controller(run_browser, recorder=recorder, screenshots=False)
    await controller.navigate(static_site.url("login.html"))
    snapshot = await controller.observe()

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
    recorder = MemoryRecorder()
    controller = Controller(run_browser, recorder=recorder, screenshots=True)
    await controller.navigate(static_site.url("login.html"))
    snapshot = await controller.observe()
    await controller.fill(snapshot, snapshot.find(name="用户名")[0].ref, "alice")

    fill = recorder.records[-1]
    assert fill.outcome == "ok" and fill.kind == "fill" and fill.value_masked == "alice"
    assert fill.screenshot_before is not None and fill.screenshot_after is not None
    assert fill.screenshot_before.png.startswith(b"\x89PNG")
    assert fill.screenshot_before.sha256 != fill.screenshot_after.sha256
    assert fill.duration_ms > 0
