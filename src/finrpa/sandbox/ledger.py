"""Deterministic bank transactions: `statement_rows(account, start, end, seed)` is a pure function.

Every day's transactions depend only on (seed, account, day), and balances chain from the account's opening
on 2023-01-01, so any date range gives the same rows and balances the portal shows and exports.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

LEDGER_START = date(2023, 1, 1)
CENT = Decimal("0.01")
_FLOOR = Decimal(500_000)

_COUNTERPARTIES = (
    ("杭州示例电子商务有限公司", "3301040160000012345"),
    ("深圳沙箱供应链管理有限公司", "4420158000400067890"),
    ("广州示例物流有限公司", "3602000109200345678"),
    ("苏州沙箱精密制造有限公司", "1102020509000987654"),
    ("成都示例软件有限公司", "5105014408000056789"),
    ("南京沙箱医药有限公司", "3201000109300222333"),
    ("天津示例化工有限公司", "1202020009000444555"),
    ("武汉沙箱食品有限公司", "4200014208000111222"),
    ("宁波示例进出口有限公司", "3901120101000777888"),
    ("重庆沙箱汽车配件有限公司", "5000110402000333444"),
)
_CREDIT_SUMMARIES = ("货款", "往来款", "退款", "服务费收入", "货款")
_DEBIT_SUMMARIES = ("货款支付", "采购款", "房租", "电费", "物流费", "咨询费")


@dataclass(frozen=True)
class StatementRow:
    """One line of a bank statement (交易明细). Exactly one of `debit`/`credit` is set."""

    date: date
    time: str
    serial: str
    summary: str
    counterparty: str
    counterparty_account: str
    debit: Decimal | None
    credit: Decimal | None
    balance: Decimal


def _cents(rng: random.Random, low: int, high: int) -> Decimal:
    return (Decimal(rng.randint(low * 100, high * 100)) / 100).quantize(CENT)


def _scheduled(day: date, rng: random.Random) -> list[tuple[str, bool, Decimal, int]]:
    """Monthly payroll and tax, quarterly interest: (summary, is_credit, amount, counterparty index)."""
    items: list[tuple[str, bool, Decimal, int]] = []
    if day.day == 10:
        items.append(("代发工资", False, _cents(rng, 180_000, 260_000), -1))
    if day.day == 15:
        items.append(("税费", False, _cents(rng, 20_000, 60_000), -2))
    if day.day == 21 and day.month in (3, 6, 9, 12):
        items.append(("结息", True, _cents(rng, 3_000, 9_000), -3))
    return items


def _day_items(account: str, day: date, seed: int) -> list[tuple[str, bool, Decimal, int]]:
    rng = random.Random(f"{seed}:{account}:{day.isoformat()}")
    count = rng.choice((2, 3, 3, 4, 4, 5)) if day.weekday() < 5 else rng.choice((0, 0, 1))
    items = _scheduled(day, rng)
    for _ in range(count):
        if rng.random() < 0.5:
            items.append(
                (rng.choice(_CREDIT_SUMMARIES), True, _cents(rng, 8_000, 320_000), rng.randrange(10))
            )
        else:
            items.append(
                (rng.choice(_DEBIT_SUMMARIES), False, _cents(rng, 2_000, 300_000), rng.randrange(10))
            )
    return items


_OWN_PARTIES = {-1: ("本单位员工（批量）", ""), -2: ("国家税务总局上海市税务局", ""), -3: ("沙箱银行", "")}


def _rows_for_day(account: str, day: date, seed: int, opening: Decimal) -> tuple[list[StatementRow], Decimal]:
    rng = random.Random(f"{seed}:{account}:{day.isoformat()}:times")
    items = _day_items(account, day, seed)
    seconds = sorted(rng.sample(range(8 * 3600, 18 * 3600), len(items)))
    balance, rows = opening, []
    for index, ((summary, is_credit, amount, party), second) in enumerate(zip(items, seconds, strict=True)):
        name, number = _COUNTERPARTIES[party] if party >= 0 else _OWN_PARTIES[party]
        if not is_credit and balance - amount < _FLOOR:  # a real company would not overdraw: money came in
            summary, is_credit = "往来款", True
        balance = balance + amount if is_credit else balance - amount
        rows.append(
            StatementRow(
                date=day,
                time=f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}",
                serial=f"{day:%Y%m%d}{account[-4:]}{index + 1:03d}",
                summary=summary,
                counterparty=name,
                counterparty_account=number,
                debit=None if is_credit else amount,
                credit=amount if is_credit else None,
                balance=balance,
            )
        )
    return rows, balance


def _opening_balance(account: str, seed: int) -> Decimal:
    return _cents(random.Random(f"{seed}:{account}:opening"), 3_000_000, 8_000_000)


@lru_cache(maxsize=256)
def _year_ledger(account: str, seed: int, year: int) -> tuple[tuple[StatementRow, ...], Decimal]:
    """All rows of `year` and the closing balance, chained from the previous year."""
    if year < LEDGER_START.year:
        return (), _opening_balance(account, seed)
    balance = _year_ledger(account, seed, year - 1)[1]
    rows: list[StatementRow] = []
    day = date(year, 1, 1)
    while day.year == year:
        day_rows, balance = _rows_for_day(account, day, seed, balance)
        rows.extend(day_rows)
        day += timedelta(days=1)
    return tuple(rows), balance


def statement_rows(account: str, start: date, end: date, seed: int) -> list[StatementRow]:
    """The transactions of `account` from `start` to `end` inclusive, oldest first."""
    rows: list[StatementRow] = []
    for year in range(max(start.year, LEDGER_START.year), end.year + 1):
        rows.extend(r for r in _year_ledger(account, seed, year)[0] if start <= r.date <= end)
    return rows


def balance_on(account: str, day: date, seed: int) -> Decimal:
    """The closing balance of `account` on `day`."""
    previous = _year_ledger(account, seed, day.year - 1)[1]
    rows = [r for r in _year_ledger(account, seed, day.year)[0] if r.date <= day]
    return rows[-1].balance if rows else previous
