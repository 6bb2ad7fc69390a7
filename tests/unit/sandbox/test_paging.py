"""Page numbers shown under result tables."""

from __future__ import annotations

from finrpa.sandbox.paging import Pagination


def test_window_shows_first_last_and_neighbours_with_gaps() -> None:
    assert Pagination.of(400, 10).window() == [1, None, 8, 9, 10, 11, 12, None, 20]
    assert Pagination.of(60, 1).window() == [1, 2, 3]


def test_requested_pages_outside_the_range_are_clamped() -> None:
    assert Pagination.of(45, 99).page == 3
    assert Pagination.of(0, 5).pages == 1
    assert Pagination.of(45, 2).slice() == slice(20, 40)
