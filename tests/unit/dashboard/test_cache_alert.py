"""The cache alert of the dashboard: a sharp fall of the action-cache hit rate against the days before."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from finrpa.dashboard.router import cache_hit_rate_alert
from finrpa.llm.service import CostSummaryRow


def _day(day: date, calls: int, hits: int) -> CostSummaryRow:
    return CostSummaryRow(None, None, None, None, day, calls, hits, calls, 0, 0, Decimal(0))


def test_a_sharp_fall_of_the_cache_hit_rate_raises_the_alert() -> None:
    today = date(2026, 3, 10)
    steady = [_day(today - timedelta(days=n), 50, 45) for n in range(1, 6)]
    assert cache_hit_rate_alert([_day(today, 50, 44), *steady], drop=0.3) is None
    alert = cache_hit_rate_alert([_day(today, 50, 10), *steady], drop=0.3)
    assert alert is not None and alert.day == today and "may have changed" in alert.message
    assert cache_hit_rate_alert([_day(today, 5, 0), *steady], drop=0.3) is None, "too few calls to judge"
