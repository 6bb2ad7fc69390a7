"""Downloaded files are typed by their bytes, not their names, and stored under safe names."""

from __future__ import annotations

from pathlib import Path

import pytest

from finrpa.browser.downloads import safe_filename, sniff_media_type

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.mark.parametrize(
    ("head", "name", "media_type"),
    [
        (b"%PDF-1.7\n", "x.csv", "application/pdf"),
        (b"\x89PNG\r\n\x1a\n\0\0", "x.pdf", "image/png"),
        (b"PK\x03\x04\x14\0\0\0[Content_Types].xml xl/workbook.xml", "statement", XLSX),
        (b"PK\x03\x04\x14\0", "archive.bin", "application/zip"),
        ("日期,摘要,金额\n2024-03-01,工资,8000.00\n".encode(), "x.pdf", "text/csv"),
        ("日期,摘要\n2024-03-01,工资\n".encode("gb18030"), "x", "text/csv"),
        (b"\xef\xbb\xbfhello world\n", "x", "text/plain"),
        (b"\x00\x01\x02\x03", "x.csv", "application/octet-stream"),
        (b"", "x", "application/octet-stream"),
    ],
)
def test_sniff_media_type(head: bytes, name: str, media_type: str) -> None:
    assert sniff_media_type(head, name) == media_type


def test_safe_filename_stays_in_the_folder_and_never_overwrites(tmp_path: Path) -> None:
    first = safe_filename("../../etc/passwd", tmp_path)
    assert first.parent == tmp_path and first.name == "passwd"
    first.write_text("x")
    assert safe_filename("passwd", tmp_path).name == "passwd-1"
    assert safe_filename("对账单 2024.csv", tmp_path).name == "对账单_2024.csv"
