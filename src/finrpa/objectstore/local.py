"""The embedded object store: a directory per bucket, write-once read-only files, HMAC-signed links."""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from finrpa.objectstore.layout import check_bucket, check_key, monthly_bucket
from finrpa.objectstore.links import LinkSigner
from finrpa.objectstore.port import ObjectAlreadyExistsError, ObjectNotFoundError, StoredObject


def _now() -> datetime:
    return datetime.now(UTC)


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
        await asyncio.to_thread(_write_once, path, data)
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


def _write_once(path: Path, data: bytes) -> None:
    """Write to a temporary file, then hard-link it into place: the name appears complete or not at all,
    and an existing object is never replaced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.part"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
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


def _list_under(folder: Path, prefix: str) -> list[str]:
    if not folder.is_dir():
        return []
    keys = (
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and not path.name.startswith(".")
    )
    return sorted(key for key in keys if key.startswith(prefix))
