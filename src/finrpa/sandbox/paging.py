"""Page numbers for result tables: 20 rows a page, a window of numbers around the current page."""

from __future__ import annotations

from dataclasses import dataclass

PAGE_SIZE = 20


@dataclass(frozen=True)
class Pagination:
    total_rows: int
    page: int
    pages: int

    @classmethod
    def of(cls, total_rows: int, requested_page: int, page_size: int = PAGE_SIZE) -> Pagination:
        pages = max((total_rows + page_size - 1) // page_size, 1)
        return cls(total_rows, min(max(requested_page, 1), pages), pages)

    def window(self, size: int = 2) -> list[int | None]:
        """Page numbers to show: first, last and `size` either side of the current one; None is a gap (…)."""
        shown = {1, self.pages, *range(self.page - size, self.page + size + 1)}
        numbers = sorted(n for n in shown if 1 <= n <= self.pages)
        result: list[int | None] = []
        for number in numbers:
            if result and result[-1] is not None and number - result[-1] > 1:
                result.append(None)
            result.append(number)
        return result

    def slice(self, page_size: int = PAGE_SIZE) -> slice:
        return slice((self.page - 1) * page_size, self.page * page_size)


def parse_page(value: str | None) -> int:
    return int(value) if value and value.isdigit() else 1
