"""statement_rows is a pure function whose balances chain and whose rows do not depend on the range asked."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from finrpa.sandbox.ledger import balance_on, statement_rows

ACCOUNT = "1001020309000123456"


def test_same_arguments_give_the_same_rows() -> None:
    first = statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 1, 31), 42)
    assert first == statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 1, 31), 42)
    assert first != statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 1, 31), 43)


def test_a_quarter_fills_at_least_ten_pages_of_twenty() -> None:
    assert len(statement_rows(ACCOUNT, date(2024, 1, 1), date(2024, 3, 31), 42)) >= 200


def test_balances_chain_across_rows_and_year_boundaries() -> None:
    rows = statement_rows(ACCOUNT, date(2023, 12, 1), date(2024, 1, 31), 42)
    for previous, row in pairwise(rows):
        assert (row.debit is None) != (row.credit is None)
        assert row.balance == previous.balance + (row.credit or 0) - (row.debit or 0)
    assert balance_on(ACCOUNT, date(2023, 12, 31), 42) == [r for r in rows if r.date.year == 2023][-1].balance


def test_serial_numbers_are_unique() -> None:
    rows = statement_rows(ACCOUNT, date(2023, 1, 1), date(2024, 12, 31), 42)
    assert len({r.serial for r in rows}) == len(rows)


def test_a_company_account_never_goes_overdrawn() -> None:
    for account in ("1001020309000765432", "1001020409000246810"):
        assert min(r.balance for r in statement_rows(account, date(2023, 1, 1), date(2025, 12, 31), 42)) > 0


@settings(max_examples=25, deadline=None)
@given(start=st.dates(date(2023, 1, 1), date(2025, 6, 1)), days=st.integers(0, 120), cut=st.integers(0, 120))
def test_a_sub_range_is_a_slice_of_the_larger_range(start: date, days: int, cut: int) -> None:
    end = start + timedelta(days=days)
    middle = start + timedelta(days=min(cut, days))
    whole = statement_rows(ACCOUNT, start, end, 42)
    assert whole == statement_rows(ACCOUNT, start, middle, 42) + statement_rows(
        ACCOUNT, middle + timedelta(days=1), end, 42
    )


def test_nothing_before_the_account_opened() -> None:
    assert statement_rows(ACCOUNT, date(2020, 1, 1), date(2022, 12, 31), 42) == []
