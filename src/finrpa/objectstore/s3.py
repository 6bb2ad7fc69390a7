"""The S3 adapter (MinIO, Ceph RGW, AWS): monthly buckets or one Object-Lock bucket with monthly prefixes.

``monthly``: bucket ``{prefix}-{YYYY-MM}``, created on first use. ``object_lock``: one bucket ``{prefix}``
created with Object Lock and a default retention (COMPLIANCE by default: nobody, root included, can
delete or overwrite an object version before it expires), keys under ``{YYYY-MM}/``. Writes are
conditional (``If-None-Match: *``) so an existing object is never replaced; links are real SigV4
presigned URLs.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from finrpa.objectstore.layout import check_bucket, check_key, month_of, monthly_bucket
from finrpa.objectstore.port import (
    ObjectAlreadyExistsError,
    ObjectNotFoundError,
    ObjectStoreUnavailableError,
    StoredObject,
)

BucketMode = Literal["monthly", "object_lock"]
_NOT_FOUND = {"404", "NoSuchKey", "NoSuchBucket", "NotFound"}


def _now() -> datetime:
    return datetime.now(UTC)


class S3ObjectStore:
    """An :class:`~finrpa.objectstore.port.ObjectStore` on any S3-compatible API, through boto3."""

    def __init__(
        self,
        client: Any,
        *,
        bucket_prefix: str = "finrpa-audit",
        mode: BucketMode = "monthly",
        lock_days: int = 1825,
        lock_mode: Literal["COMPLIANCE", "GOVERNANCE"] = "COMPLIANCE",
        region: str = "us-east-1",
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._client = client
        self.bucket_prefix = bucket_prefix
        self.mode = mode
        self.lock_days = lock_days
        self.lock_mode = lock_mode
        self.region = region
        self._clock = clock
        self._ready_buckets: set[str] = set()

    def placement(self, key: str, at: datetime) -> tuple[str, str]:
        if self.mode == "object_lock":
            return self.bucket_prefix, f"{month_of(at)}/{key}"
        return monthly_bucket(self.bucket_prefix, at), key

    async def put(self, key: str, data: bytes, content_type: str, *, bucket: str | None = None) -> StoredObject:
        if bucket is None:
            bucket, key = self.placement(key, self._clock())
        check_bucket(bucket)
        check_key(key)
        digest = hashlib.sha256(data).hexdigest()
        await asyncio.to_thread(self._put_sync, bucket, key, data, content_type, digest)
        return StoredObject(bucket=bucket, key=key, sha256=digest, size=len(data))

    async def get(self, key: str, *, bucket: str) -> bytes:
        return await asyncio.to_thread(self._get_sync, bucket, key)

    async def exists(self, key: str, *, bucket: str) -> bool:
        return await asyncio.to_thread(self._exists_sync, bucket, key)

    async def presign_get(self, key: str, *, bucket: str, expires_s: int = 3600) -> str:
        check_bucket(bucket)
        check_key(key)
        if expires_s <= 0:
            raise ValueError("A link must be valid for at least one second.")
        url: str = self._client.generate_presigned_url(
            "get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=expires_s
        )
        return url

    async def list_keys(self, prefix: str, *, bucket: str) -> list[str]:
        return await asyncio.to_thread(self._list_sync, bucket, prefix)

    def _put_sync(self, bucket: str, key: str, data: bytes, content_type: str, digest: str) -> None:
        self._ensure_bucket(bucket)
        md5 = base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()
        try:
            self._client.put_object(
                Bucket=bucket,
                Key=key,
                Body=data,
                ContentType=content_type,
                ContentMD5=md5,
                IfNoneMatch="*",
                Metadata={"sha256": digest},
            )
        except ClientError as exc:
            if _error_code(exc) in ("PreconditionFailed", "412"):
                raise ObjectAlreadyExistsError(
                    f"An object already exists at {key} in {bucket}; objects are write-once, use a new key."
                ) from exc
            raise _unavailable(exc, f"store {key} in {bucket}") from exc
        except BotoCoreError as exc:
            raise _unavailable(exc, f"store {key} in {bucket}") from exc

    def _get_sync(self, bucket: str, key: str) -> bytes:
        check_bucket(bucket)
        check_key(key)
        try:
            response = self._client.get_object(Bucket=bucket, Key=key)
            body: bytes = response["Body"].read()
        except ClientError as exc:
            if _error_code(exc) in _NOT_FOUND:
                raise ObjectNotFoundError(f"There is no object {key} in bucket {bucket}.") from exc
            raise _unavailable(exc, f"read {key} from {bucket}") from exc
        except BotoCoreError as exc:
            raise _unavailable(exc, f"read {key} from {bucket}") from exc
        return body

    def _exists_sync(self, bucket: str, key: str) -> bool:
        check_bucket(bucket)
        check_key(key)
        try:
            self._client.head_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            if _error_code(exc) in _NOT_FOUND:
                return False
            raise _unavailable(exc, f"look up {key} in {bucket}") from exc
        except BotoCoreError as exc:
            raise _unavailable(exc, f"look up {key} in {bucket}") from exc
        return True

    def _list_sync(self, bucket: str, prefix: str) -> list[str]:
        check_bucket(bucket)
        keys: list[str] = []
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
                keys.extend(item["Key"] for item in page.get("Contents", []))
        except ClientError as exc:
            if _error_code(exc) in _NOT_FOUND:
                return []
            raise _unavailable(exc, f"list {bucket}") from exc
        except BotoCoreError as exc:
            raise _unavailable(exc, f"list {bucket}") from exc
        return sorted(keys)

    def _ensure_bucket(self, bucket: str) -> None:
        if bucket in self._ready_buckets:
            return
        try:
            self._client.head_bucket(Bucket=bucket)
        except ClientError as exc:
            if _error_code(exc) not in _NOT_FOUND:
                raise _unavailable(exc, f"look up bucket {bucket}") from exc
            self._create_bucket(bucket)
        self._ready_buckets.add(bucket)

    def _create_bucket(self, bucket: str) -> None:
        arguments: dict[str, Any] = {"Bucket": bucket}
        if self.region != "us-east-1":
            arguments["CreateBucketConfiguration"] = {"LocationConstraint": self.region}
        if self.mode == "object_lock":
            arguments["ObjectLockEnabledForBucket"] = True
        try:
            self._client.create_bucket(**arguments)
        except ClientError as exc:
            if _error_code(exc) not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise _unavailable(exc, f"create bucket {bucket}") from exc
        if self.mode == "object_lock":
            retention = {"Mode": self.lock_mode, "Days": self.lock_days}
            try:
                self._client.put_object_lock_configuration(
                    Bucket=bucket,
                    ObjectLockConfiguration={"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": retention}},
                )
            except ClientError as exc:
                raise _unavailable(exc, f"set the default Object Lock retention of {bucket}") from exc


def _error_code(exc: ClientError) -> str:
    error = exc.response.get("Error", {})
    return str(error.get("Code", ""))


def _unavailable(exc: Exception, what: str) -> ObjectStoreUnavailableError:
    reason = _error_code(exc) if isinstance(exc, ClientError) else type(exc).__name__
    return ObjectStoreUnavailableError(
        f"The object store could not {what} ({reason}). Check FINRPA_S3_ENDPOINT_URL, the credentials and "
        "that the service is up; the operation can be retried."
    )
