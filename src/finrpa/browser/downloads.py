"""Downloads: saved into the run's folder, hashed, sized and typed by magic bytes, refused over a limit."""

from __future__ import annotations

import asyncio
import hashlib
import re
from pathlib import Path

from playwright.async_api import Download
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from finrpa.browser.errors import DownloadRejectedError

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/vnd.ms-excel"),
    (b"PK\x03\x04", "application/zip"),
    (b"PK\x05\x06", "application/zip"),
)
_SAFE_NAME = re.compile(r"[^\w.\-\u4e00-\u9fff]+")


class DownloadedFile(BaseModel):
    """A file the portal sent, as stored in the run's folder."""

    path: Path
    filename: str
    suggested_filename: str
    size: int
    sha256: str
    media_type: str
    url: str


def sniff_media_type(head: bytes, filename: str = "") -> str:
    """The media type by magic bytes (ZIP containers are told apart by name: XLSX/DOCX), else text or binary."""
    for magic, media_type in _SIGNATURES:
        if head.startswith(magic):
            if media_type == "application/zip":
                return _zip_flavour(head, filename)
            return media_type
    return _text_or_binary(head)


def _zip_flavour(head: bytes, filename: str) -> str:
    if b"xl/" in head or filename.lower().endswith(".xlsx"):
        return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    if b"word/" in head or filename.lower().endswith(".docx"):
        return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    return "application/zip"


def _text_or_binary(head: bytes) -> str:
    sample = head.removeprefix(b"\xef\xbb\xbf")
    if not sample:
        return "application/octet-stream"
    if b"\x00" in sample:
        return "application/octet-stream"
    for encoding in ("utf-8", "gb18030"):
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            continue
        return "text/csv" if _looks_like_csv(text) else "text/plain"
    return "application/octet-stream"


def _looks_like_csv(text: str) -> bool:
    lines = [line for line in text.splitlines()[:5] if line.strip()]
    return len(lines) >= 1 and all(line.count(",") >= 1 for line in lines) and (
        len({line.count(",") for line in lines[:-1]} or {0}) == 1
    )


def safe_filename(suggested: str, folder: Path) -> Path:
    """A path in ``folder`` for ``suggested`` that escapes nothing and overwrites nothing."""
    stem = _SAFE_NAME.sub("_", Path(suggested).name).strip("._") or "download"
    candidate = folder / stem
    counter = 1
    while candidate.exists():
        base, dot, ext = stem.rpartition(".")
        candidate = folder / (f"{base}-{counter}.{ext}" if dot and base else f"{stem}-{counter}")
        counter += 1
    return candidate


async def save_download(download: Download, folder: Path, max_bytes: int) -> DownloadedFile:
    """Save ``download`` into ``folder`` and describe it; refuse (and delete) empty or oversized files."""
    target = await asyncio.to_thread(_prepare_target, download.suggested_filename, folder)
    try:
        await download.save_as(target)
    except PlaywrightError as exc:
        raise DownloadRejectedError(
            f"The download of {download.suggested_filename!r} failed ({exc.message}); try the export again.",
            retryable=True,
        ) from exc
    return await asyncio.to_thread(_check_saved, target, download.suggested_filename, download.url, max_bytes)


def _prepare_target(suggested: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return safe_filename(suggested, folder)


def _check_saved(target: Path, suggested: str, url: str, max_bytes: int) -> DownloadedFile:
    size = target.stat().st_size
    if size > max_bytes or size == 0:
        target.unlink(missing_ok=True)
        problem = "is empty" if size == 0 else f"is {size} bytes, over the run's limit of {max_bytes}"
        raise DownloadRejectedError(f"The download {suggested!r} {problem}; it was deleted.")
    return describe_file(target, suggested, url)


def describe_file(path: Path, suggested: str, url: str) -> DownloadedFile:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        head = handle.read(4096)
        digest.update(head)
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return DownloadedFile(
        path=path,
        filename=path.name,
        suggested_filename=suggested,
        size=path.stat().st_size,
        sha256=digest.hexdigest(),
        media_type=sniff_media_type(head, suggested),
        url=url if not url.startswith("data:") else "data:…",
    )
