"""The object-store port: write-once objects addressed by bucket and key, and expiring download links.

Errors::

    ObjectNotFoundError (NotFoundError, 404)        no object at that bucket/key
    ObjectAlreadyExistsError (ConflictError, 409)   objects are write-once; the key is taken
    ObjectStoreUnavailableError (ExternalServiceError, 502, retryable)  the backend failed
    InvalidLinkError (PermissionDeniedError, 403)   a download link is forged, altered or expired
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from finrpa.exceptions import ConflictError, ExternalServiceError, NotFoundError, PermissionDeniedError


@dataclass(frozen=True, slots=True)
class StoredObject:
    """Where an object was written, and what was written (SHA-256 hex of the bytes, size in bytes)."""

    bucket: str
    key: str
    sha256: str
    size: int


class ObjectStore(Protocol):
    """Write-once object storage. ``put`` without ``bucket`` places the object by the current month."""

    def placement(self, key: str, at: datetime) -> tuple[str, str]:
        """The (bucket, key) an object with logical ``key`` written at ``at`` goes to."""
        ...

    async def put(self, key: str, data: bytes, content_type: str, *, bucket: str | None = None) -> StoredObject:
        """Store ``data``; with ``bucket`` the key is used as given, else :meth:`placement` decides."""
        ...

    async def get(self, key: str, *, bucket: str) -> bytes: ...

    async def exists(self, key: str, *, bucket: str) -> bool: ...

    async def presign_get(self, key: str, *, bucket: str, expires_s: int = 3600) -> str:
        """A URL anyone holding it can GET for ``expires_s`` seconds."""
        ...

    async def list_keys(self, prefix: str, *, bucket: str) -> list[str]:
        """Keys under ``prefix`` in ``bucket``, sorted (empty when the bucket does not exist)."""
        ...


class ObjectNotFoundError(NotFoundError):
    code = "object_not_found"


class ObjectAlreadyExistsError(ConflictError):
    code = "object_exists"


class ObjectStoreUnavailableError(ExternalServiceError):
    code = "object_store_unavailable"


class InvalidLinkError(PermissionDeniedError):
    code = "invalid_link"
