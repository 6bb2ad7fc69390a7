"""trade_rows and the order quote band are deterministic and consistent."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from finrpa.sandbox.directory import SECURITIES
from finrpa.sandbox.securities_order import quote
from finrpa.sandbox.trades import MIN_COMMISSION, trade_rows


def test_trades_are_deterministic_weekday_only_and_add_up() -> None:
    rows = trade_rows("880012345678", date(2024, 1, 1), date(2024, 3, 31), 42)
    assert rows == trade_rows("880012345678", date(2024, 1, 1), date(2024, 3, 31), 42)
    assert len(rows) >= 200
    for row in rows:
        assert row.date.weekday() < 5
        assert row.amount == (row.price * row.quantity).quantize(Decimal("0.01"))
        assert row.quantity % 100 == 0 and row.commission >= MIN_COMMISSION


def test_code_filter_keeps_only_that_security() -> None:
    rows = trade_rows("880012345678", date(2024, 1, 1), date(2024, 3, 31), 42, code="600100")
    assert rows and {r.code for r in rows} == {"600100"}


def test_quote_band_is_ten_percent_either_side() -> None:
    band = quote(SECURITIES[0], date(2025, 6, 16), 42)
    assert band.limit_down < band.last < band.limit_up
    assert abs(band.limit_up - band.last * Decimal("1.1")) <= Decimal("0.01")
