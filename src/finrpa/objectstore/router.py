"""Serves the local object store's signed links: ``GET /api/v1/objects/{bucket}/{key}?exp=&sig=``.

With S3 configured, links are S3 presigned URLs and this route answers 404 for everything.
"""

from __future__ import annotations

import mimetypes
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from finrpa.config import get_settings
from finrpa.objectstore.factory import local_store_from_settings, uses_s3
from finrpa.objectstore.links import LINK_PATH
from finrpa.objectstore.local import LocalObjectStore
from finrpa.objectstore.port import ObjectNotFoundError

router = APIRouter(prefix=LINK_PATH, tags=["objects"])


def local_object_store() -> LocalObjectStore:
    """The local store of the running settings (a dependency tests can override)."""
    settings = get_settings()
    if uses_s3(settings):
        raise ObjectNotFoundError("Objects are served by the S3 service; use the presigned link you were given.")
    return local_store_from_settings(settings)


@router.get("/{bucket}/{key:path}", response_class=Response, summary="Download an object by signed link")
async def download_object(
    bucket: str,
    key: str,
    store: Annotated[LocalObjectStore, Depends(local_object_store)],
    exp: Annotated[int, Query(description="Expiry, Unix seconds")],
    sig: Annotated[str, Query(max_length=100, description="HMAC-SHA-256 signature of the link")],
) -> Response:
    store.check_link(bucket, key, exp, sig)
    data = await store.get(key, bucket=bucket)
    media_type = mimetypes.guess_type(key)[0] or "application/octet-stream"
    headers = {
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Disposition": f'inline; filename="{key.rsplit("/", 1)[-1]}"',
    }
    return Response(content=data, media_type=media_type, headers=headers)
