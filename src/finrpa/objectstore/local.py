"""The embedded object store: a directory per bucket, write-once read-only files, HMAC-signed links."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from finrpa.objectstore.layout import check_bucket, check_key, monthly_bucket
from finrpa.objectstore.links import LinkSigner
from finrpa.objectstore.port import ObjectAlreadyExistsError, ObjectNotFoundError, StoredObject


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class DeferredSync:
    """Objects written without waiting for their fsync: each file's fsync runs in the background as soon as it
    is written, and :meth:`wait` (called before the transaction that names them commits) fsyncs their
    directories once and returns when everything is on disk, raising if any of it failed."""

    pending: list[asyncio.Future[None]] = field(default_factory=list)
    folders: set[Path] = field(default_factory=set)

    async def wait(self) -> None:
        pending, self.pending = self.pending, []
        folders, self.folders = self.folders, set()
        if pending:
            await asyncio.gather(*pending)
        if folders:
            await asyncio.to_thread(_sync_folders, sorted(folders))


_deferred: contextvars.ContextVar[DeferredSync | None] = contextvars.ContextVar("objectstore_deferred", default=None)


@contextlib.contextmanager
def deferred_sync(collector: DeferredSync) -> Iterator[None]:
    """Within this block, local puts return once the object is written and linked into place; their fsyncs
    are left to ``collector`` (whose owner awaits :meth:`DeferredSync.wait` before relying on them)."""
    token = _deferred.set(collector)
    try:
        yield
    finally:
        _deferred.reset(token)


class LocalObjectStore:
    """Objects as files under ``root/<bucket>/<key>``; links point at ``base_url`` + /api/v1/objects."""

    def __init__(
        self,
        root: Path,
        signer: LinkSigner,
        *,
        base_url: str,
        bucket_prefix: str = "finrpa-audit",
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self.root = root
        self.signer = signer
        self.base_url = base_url
        self.bucket_prefix = bucket_prefix
        self._clock = clock

    def placement(self, key: str, at: datetime) -> tuple[str, str]:
        return monthly_bucket(self.bucket_prefix, at), key

    async def put(self, key: str, data: bytes, content_type: str, *, bucket: str | None = None) -> StoredObject:
        if bucket is None:
            bucket, key = self.placement(key, self._clock())
        path = self._path(bucket, key)
        collector = _deferred.get()
        await asyncio.to_thread(_write_once, path, data, collector is None)
        if collector is not None:
            collector.pending.append(asyncio.ensure_future(asyncio.to_thread(_sync_file, path)))
            collector.folders.add(path.parent)
        return StoredObject(bucket=bucket, key=key, sha256=hashlib.sha256(data).hexdigest(), size=len(data))

    async def get(self, key: str, *, bucket: str) -> bytes:
        path = self._path(bucket, key)
        try:
            return await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError as exc:
            raise ObjectNotFoundError(f"There is no object {key} in bucket {bucket}.") from exc

    async def exists(self, key: str, *, bucket: str) -> bool:
        return await asyncio.to_thread(self._path(bucket, key).is_file)

    async def presign_get(self, key: str, *, bucket: str, expires_s: int = 3600) -> str:
        self._path(bucket, key)  # validates the names
        return self.signer.url(self.base_url, bucket, key, expires_s)

    async def list_keys(self, prefix: str, *, bucket: str) -> list[str]:
        check_bucket(bucket)
        folder = self.root / bucket
        return await asyncio.to_thread(_list_under, folder, prefix)

    def check_link(self, bucket: str, key: str, expires_at: int, signature: str) -> None:
        """Raise InvalidLinkError unless the link was issued by this store and is still valid."""
        self.signer.check(bucket, key, expires_at, signature)

    def _path(self, bucket: str, key: str) -> Path:
        check_bucket(bucket)
        check_key(key)
        return self.root / bucket / key


def _write_once(path: Path, data: bytes, sync: bool = True) -> None:
    """Write to a temporary file, then hard-link it into place: the name appears complete or not at all,
    and an existing object is never replaced. Without ``sync`` the caller fsyncs the file and its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.part"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.chmod(temporary, 0o444)
        try:
            os.link(temporary, path)
        except FileExistsError as exc:
            raise ObjectAlreadyExistsError(
                f"An object already exists at {path.name}; objects are write-once, use a new key."
            ) from exc
    finally:
        temporary.unlink(missing_ok=True)


def _sync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folders(folders: list[Path]) -> None:
    """fsync each folder, so the names linked into it survive a crash."""
    for folder in folders:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _list_under(folder: Path, prefix: str) -> list[str]:
    if not folder.is_dir():
        return []
    keys = (
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and not path.name.startswith(".")
    )
    return sorted(key for key in keys if key.startswith(prefix))
