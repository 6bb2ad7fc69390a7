"""The action cache on the in-process store and on real Redis: put/get/verify/evict, TTL, counters,
the hit-rate-drop alert, refusal of unsafe values, and no way across organisations."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from finrpa.cache import InProcessKeyValueStore, KeyValueStore
from finrpa.exceptions import NotFoundError
from finrpa.llm import ActionCache, ActionCacheRejected, CachedDecision, HitRateDropAlert, goal_hash
from finrpa.llm.cache_health import DetectorSettings

DOM = hashlib.sha256(b"<form><label>Start date</label><input></form>").hexdigest()
OTHER_DOM = hashlib.sha256(b"<form v2>").hexdigest()
GOAL = "Query the statement of account 6222 for March"
DECISION: dict[str, Any] = {
    "actions": [
        {"action_type": "fill", "target": {"role": "textbox", "name": "开始日期", "container": "交易明细查询"},
         "value": "{{start_date}}"},
        {"action_type": "fill", "target": {"role": "textbox", "name": "密码"}, "value": "{{secret:password}}"},
        {"action_type": "click", "target": {"role": "button", "name": "查询", "index": 0, "peer_count": 2}},
        {"action_type": "press", "key": "Enter"},
        {"action_type": "extract", "target": {"role": "table", "name": "交易明细"}},
    ],
    "prompt_id": "executor.next_action",
    "prompt_version": 2,
}  # fmt: skip


class Alerts:
    def __init__(self) -> None:
        self.sent: list[HitRateDropAlert] = []

    async def __call__(self, alert: HitRateDropAlert) -> None:
        self.sent.append(alert)


def _cache(store: KeyValueStore, alerts: Alerts | None = None, **detector: Any) -> ActionCache:
    settings = DetectorSettings(**{"window": 10, "baseline": 30, "drop": 0.3, "cooldown_s": 3600, **detector})
    return ActionCache(store, detector=settings, on_alert=alerts)


async def test_put_get_and_verify(key_value_store: KeyValueStore) -> None:
    cache = _cache(key_value_store)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    assert key == f"action_cache:org-a:{DOM}:{goal_hash(GOAL)}"

    lookup = await cache.get("org-a", DOM, "  query the statement of account 6222 for march. ")
    assert lookup.found and lookup.key == key
    assert lookup.decision is not None
    assert lookup.decision.actions == CachedDecision.model_validate(DECISION).actions
    await cache.record_verification("org-a", key, ok=True)

    assert (await cache.stats("org-a")).hits == 1
    assert (await cache.get("org-a", OTHER_DOM, GOAL)).miss_reason == "not_found"


async def test_a_failed_verification_evicts_and_counts_a_miss_with_its_reason(
    key_value_store: KeyValueStore,
) -> None:
    cache = _cache(key_value_store)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    await cache.record_verification("org-a", key, ok=False, reason="Fingerprint mismatch")

    lookup = await cache.get("org-a", DOM, GOAL)
    assert not lookup.found and lookup.miss_reason == "not_found"
    stats = await cache.stats("org-a")
    assert stats.hits == 0
    assert stats.misses_by_reason == {"fingerprint_mismatch": 1, "not_found": 1}
    assert stats.hit_rate == 0.0


async def test_entries_live_24_hours_by_default(key_value_store: KeyValueStore) -> None:
    cache = ActionCache(key_value_store)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    remaining = await key_value_store.ttl(key)
    assert remaining is not None and 24 * 3600 - 60 < remaining <= 24 * 3600


async def test_entries_expire() -> None:
    now = [0.0]
    cache = ActionCache(InProcessKeyValueStore(clock=lambda: now[0]), ttl_s=24 * 3600)
    await cache.put("org-a", DOM, GOAL, DECISION)
    now[0] = 24 * 3600 + 1
    assert (await cache.get("org-a", DOM, GOAL)).miss_reason == "not_found"


async def test_no_organisation_reads_verifies_or_clears_another_s_entries(key_value_store: KeyValueStore) -> None:
    cache = _cache(key_value_store)
    key_a = await cache.put("org-a", DOM, GOAL, DECISION)
    await cache.put("org-b", DOM, GOAL, {**DECISION, "prompt_version": 9})

    assert (await cache.get("org-b", DOM, GOAL)).decision.prompt_version == 9  # type: ignore[union-attr]
    with pytest.raises(NotFoundError):
        await cache.record_verification("org-b", key_a, ok=False, reason="evil")
    assert await cache.clear("org-b") == 1
    assert (await cache.get("org-a", DOM, GOAL)).found
    for hostile in ("org-*", "org-a:x", "*", "org-?", ""):
        with pytest.raises(ValueError, match="org_id"):
            await cache.clear(hostile)
    assert (await cache.stats("org-b")).misses_by_reason == {}  # org-a's lookups never counted for org-b


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"value": "2024-03-01"}, "placeholder"),
        ({"value": "{{start_date}} or 2024"}, "placeholder"),
        ({"ref": "e12"}, "Extra inputs"),
        ({"target": {"role": "textbox", "name": "e12"}}, "snapshot ref"),
        ({"action_type": "extract", "value": "{{rows}}"}, "extracted data"),
        ({"data": [["2024-03-01", "100.00"]]}, "Extra inputs"),
        ({"action_type": "press", "value": None, "key": "Enter; rm -rf"}, "key name"),
    ],
)
async def test_unsafe_values_are_refused(change: dict[str, Any], complaint: str) -> None:
    cache = _cache(InProcessKeyValueStore())
    action = {"action_type": "fill", "target": {"role": "textbox", "name": "开始日期"}, "value": "{{start_date}}"}
    with pytest.raises(ActionCacheRejected, match=complaint):
        await cache.put("org-a", DOM, GOAL, {"actions": [{**action, **change}]})


async def test_a_known_secret_value_is_refused(key_value_store: KeyValueStore) -> None:
    cache = _cache(key_value_store)
    leaky = {"actions": [{"action_type": "click", "target": {"role": "button", "name": "Login as s3cret-Pa55"}}]}
    with pytest.raises(ActionCacheRejected, match="secret"):
        await cache.put("org-a", DOM, GOAL, leaky, known_secret_values=["s3cret-Pa55"])
    assert await key_value_store.scan_prefix("action_cache:") == []


async def test_a_corrupt_entry_is_a_miss_and_is_removed(key_value_store: KeyValueStore) -> None:
    cache = _cache(key_value_store)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    await key_value_store.set(key, '{"actions": [{"action_type": "fill", "value": "literal"}]}')
    assert (await cache.get("org-a", DOM, GOAL)).miss_reason == "corrupt_entry"
    assert await key_value_store.get(key) is None


async def test_a_hit_rate_drop_raises_one_alert(key_value_store: KeyValueStore) -> None:
    alerts = Alerts()
    cache = _cache(key_value_store, alerts)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    for _ in range(30):  # a healthy baseline: every lookup verifies
        await cache.record_verification("org-a", key, ok=True)
    for _ in range(2):
        await cache.record_verification("org-a", key, ok=False, reason="element_not_found")
    assert alerts.sent == []  # a few misses are no alarm
    for _ in range(12):  # the portal changed: nothing matches any more, but one alert is enough
        await cache.get("org-a", OTHER_DOM, GOAL)

    [alert] = alerts.sent
    assert alert.org_id == "org-a" and alert.window == 10
    assert alert.baseline_rate >= 0.9 and alert.hit_rate <= 0.7  # raised as soon as the drop reached 30 points
    assert "target system may have changed" in alert.message
    assert alert.event_fields()["hit_rate"] == alert.hit_rate
    assert await cache.check_hit_rate("org-a") is None  # cooldown: no second alert for the same drop
    assert await cache.check_hit_rate("org-b") is None


async def test_a_steady_hit_rate_raises_no_alert(key_value_store: KeyValueStore) -> None:
    alerts = Alerts()
    cache = _cache(key_value_store, alerts)
    key = await cache.put("org-a", DOM, GOAL, DECISION)
    for index in range(80):
        await cache.record_verification("org-a", key, ok=index % 4 != 0, reason="ambiguous")
    assert alerts.sent == []
    assert (await cache.stats("org-a")).hit_rate == 0.75
