"""CSV exports as Chinese portals serve them: UTF-8 with a BOM (so Excel opens them), CRLF line ends.

Amounts are plain numbers with two decimals (no thousands separators), dates YYYY-MM-DD; the header row
uses the v1 labels in the user's language in both layouts (export formats outlive UI redesigns).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from decimal import Decimal
from urllib.parse import quote

from finrpa.sandbox.ledger import StatementRow
from finrpa.sandbox.trades import TradeRow
from finrpa.sandbox.wording import Lang, text

STATEMENT_COLUMNS = (
    "stmt.col.date",
    "stmt.col.time",
    "stmt.col.summary",
    "stmt.col.counterparty",
    "stmt.col.counterparty_account",
    "stmt.col.debit",
    "stmt.col.credit",
    "stmt.col.balance",
    "stmt.col.serial",
)
TRADE_COLUMNS = (
    "sec.col.date",
    "sec.col.time",
    "sec.col.code",
    "sec.col.name",
    "sec.col.side",
    "sec.col.price",
    "sec.col.quantity",
    "sec.col.amount",
    "sec.col.commission",
    "sec.col.trade_no",
)


def _plain(amount: Decimal | None) -> str:
    return "" if amount is None else f"{amount:.2f}"


def _csv_bytes(header: Sequence[str], rows: Iterable[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8-sig")


def statement_csv(rows: Iterable[StatementRow], lang: Lang) -> bytes:
    header = [text(key, lang, "v1") for key in STATEMENT_COLUMNS]
    return _csv_bytes(
        header,
        (
            [
                r.date.isoformat(),
                r.time,
                r.summary,
                r.counterparty,
                r.counterparty_account,
                _plain(r.debit),
                _plain(r.credit),
                _plain(r.balance),
                r.serial,
            ]
            for r in rows
        ),
    )


def trades_csv(rows: Iterable[TradeRow], lang: Lang) -> bytes:
    header = [text(key, lang, "v1") for key in TRADE_COLUMNS]
    return _csv_bytes(
        header,
        (
            [
                r.date.isoformat(),
                r.time,
                r.code,
                r.name,
                r.side,
                _plain(r.price),
                str(r.quantity),
                _plain(r.amount),
                _plain(r.commission),
                r.trade_no,
            ]
            for r in rows
        ),
    )


def attachment_header(filename: str, ascii_filename: str) -> str:
    """Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / RFC 5987)."""
    return f"attachment; filename=\"{ascii_filename}\"; filename*=UTF-8''{quote(filename)}"
