"""The insurer's book of in-force and expired policies, generated from the seed (a pure function)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

from finrpa.sandbox.directory import PRODUCTS, Product
from finrpa.sandbox.validation import prc_id_check_digit

BOOK_SIZE = 80
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
_GIVEN = (
    "伟",
    "芳",
    "娜",
    "敏",
    "静",
    "磊",
    "洋",
    "艳",
    "勇",
    "军",
    "杰",
    "娟",
    "涛",
    "明",
    "超",
    "秀英",
    "建华",
    "晓东",
)
_REGIONS = ("110105", "310104", "440305", "330106", "320102", "510107")
_TERM_YEARS = {"TL03": 20, "CI04": 30}


@dataclass(frozen=True)
class Policy:
    policy_no: str
    holder: str
    holder_id: str
    product: Product
    start: date
    end: date
    sum_insured: Decimal
    premium: Decimal

    def in_force_on(self, day: date) -> bool:
        return self.start <= day <= self.end


def _holder_id(rng: random.Random) -> str:
    birth = date(1960, 1, 1) + timedelta(days=rng.randrange(365 * 40))
    first17 = f"{rng.choice(_REGIONS)}{birth:%Y%m%d}{rng.randint(100, 999)}"
    return first17 + prc_id_check_digit(first17)


def _add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February in a common year
        return date(day.year + years, 3, 1)


def _policy(seed: int, index: int) -> Policy:
    rng = random.Random(f"{seed}:policy:{index}")
    product = rng.choice(PRODUCTS)
    start = date(2022, 1, 1) + timedelta(days=rng.randrange(365 * 3 + 180))
    years = _TERM_YEARS.get(product.code, 1)
    sum_insured = Decimal(rng.choice((100_000, 200_000, 500_000, 1_000_000, 3_000_000)))
    return Policy(
        policy_no=f"P{start.year}{index + 1:04d}{rng.randint(1000, 9999)}",
        holder=rng.choice(_SURNAMES) + rng.choice(_GIVEN),
        holder_id=_holder_id(rng),
        product=product,
        start=start,
        end=_add_years(start, years) - timedelta(days=1),
        sum_insured=sum_insured,
        premium=(sum_insured * Decimal(rng.randint(15, 120)) / 10_000).quantize(Decimal("0.01")),
    )


@lru_cache(maxsize=8)
def policy_book(seed: int) -> tuple[Policy, ...]:
    """Every policy of the sandbox insurer for `seed`."""
    return tuple(_policy(seed, index) for index in range(BOOK_SIZE))


def find_policy(seed: int, policy_no: str) -> Policy | None:
    return next((p for p in policy_book(seed) if p.policy_no == policy_no.strip().upper()), None)


def search_policies(seed: int, query: str, limit: int = 20) -> list[Policy]:
    """Policies whose number contains `query` (case-insensitive) or whose holder name contains it."""
    needle = query.strip().upper()
    if not needle:
        return []
    return [p for p in policy_book(seed) if needle in p.policy_no or needle in p.holder][:limit]
