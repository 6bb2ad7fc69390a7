"""Deterministic securities executions: `trade_rows(account, start, end, seed)` is a pure function."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from finrpa.sandbox.directory import SECURITIES, Security

CENT = Decimal("0.01")
MIN_COMMISSION = Decimal(5)
COMMISSION_RATE = Decimal("0.00025")


@dataclass(frozen=True)
class TradeRow:
    """One execution (成交记录)."""

    date: date
    time: str
    code: str
    name: str
    side: str  # 买入 / 卖出
    price: Decimal
    quantity: int
    amount: Decimal
    commission: Decimal
    trade_no: str


def day_price(security: Security, day: date, seed: int) -> Decimal:
    """The day's reference price: the base price moved by a deterministic ±8 % drift."""
    rng = random.Random(f"{seed}:{security.code}:{day.isoformat()}:price")
    drift = Decimal(1) + Decimal(rng.randint(-800, 800)) / 10_000
    return (Decimal(security.base_price_cents) / 100 * drift).quantize(CENT, ROUND_HALF_UP)


def _trades_of_day(account: str, day: date, seed: int) -> list[TradeRow]:
    if day.weekday() >= 5:
        return []
    rng = random.Random(f"{seed}:{account}:{day.isoformat()}:trades")
    seconds = sorted(rng.sample(range(9 * 3600 + 1800, 15 * 3600), rng.randint(2, 5)))
    rows = []
    for index, second in enumerate(seconds):
        security = rng.choice(SECURITIES)
        reference = day_price(security, day, seed)
        price = (reference * (Decimal(1) + Decimal(rng.randint(-150, 150)) / 10_000)).quantize(CENT)
        quantity = rng.randint(1, 60) * 100
        amount = (price * quantity).quantize(CENT)
        rows.append(
            TradeRow(
                date=day,
                time=f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}",
                code=security.code,
                name=security.name,
                side=rng.choice(("买入", "卖出")),
                price=price,
                quantity=quantity,
                amount=amount,
                commission=max(MIN_COMMISSION, (amount * COMMISSION_RATE).quantize(CENT, ROUND_HALF_UP)),
                trade_no=f"{day:%Y%m%d}{index + 1:02d}{rng.randint(100_000, 999_999)}",
            )
        )
    return rows


def trade_rows(account: str, start: date, end: date, seed: int, code: str = "") -> list[TradeRow]:
    """The executions of `account` from `start` to `end` inclusive (optionally one security), oldest first."""
    rows: list[TradeRow] = []
    day = start
    while day <= end:
        rows.extend(r for r in _trades_of_day(account, day, seed) if not code or r.code == code)
        day += timedelta(days=1)
    return rows
