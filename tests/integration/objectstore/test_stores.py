"""The same behaviour from both object-store adapters: local directory and S3 (moto server on loopback)."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from finrpa.exceptions import FinRPAError
from finrpa.objectstore.links import LinkSigner, link_key
from finrpa.objectstore.local import LocalObjectStore
from finrpa.objectstore.port import ObjectAlreadyExistsError, ObjectNotFoundError, ObjectStore
from finrpa.objectstore.router import local_object_store, router
from finrpa.objectstore.s3 import S3ObjectStore
from tests.integration.objectstore.conftest import s3_client

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
NOVEMBER = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)


def _app(store: LocalObjectStore) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    app.dependency_overrides[local_object_store] = lambda: store

    @app.exception_handler(FinRPAError)
    async def _problem(_request: Request, exc: FinRPAError) -> JSONResponse:  # what api.py does centrally
        return JSONResponse({"code": exc.code, "detail": exc.message}, status_code=exc.http_status)

    return app


class Adapter:
    """One store under test plus a way to GET a link it issued."""

    def __init__(self, store: ObjectStore, client: httpx.AsyncClient) -> None:
        self.store = store
        self.client = client


@pytest.fixture(params=["local", "s3"])
async def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Adapter]:
    if request.param == "local":
        store = LocalObjectStore(
            tmp_path / "objects", LinkSigner(link_key(b"s" * 32)), base_url="http://finrpa.test", clock=lambda: NOVEMBER
        )
        transport = httpx.ASGITransport(app=_app(store))
        async with httpx.AsyncClient(transport=transport) as client:
            yield Adapter(store, client)
        return
    endpoint: str = request.getfixturevalue("s3_endpoint")
    prefix = f"t{uuid.uuid4().hex[:10]}"
    s3 = S3ObjectStore(s3_client(endpoint), bucket_prefix=prefix, clock=lambda: NOVEMBER)
    async with httpx.AsyncClient() as client:
        yield Adapter(s3, client)


async def test_put_then_get_returns_the_same_bytes_and_their_hash(adapter: Adapter) -> None:
    stored = await adapter.store.put("audit/org1/task1/3_before_a.png", PNG, "image/png")
    assert stored.sha256 == hashlib.sha256(PNG).hexdigest()
    assert stored.size == len(PNG)
    assert stored.bucket.endswith("-2026-11")  # the month the object was written in
    assert await adapter.store.get(stored.key, bucket=stored.bucket) == PNG
    assert await adapter.store.exists(stored.key, bucket=stored.bucket)
    assert not await adapter.store.exists("audit/org1/task1/nothing.png", bucket=stored.bucket)


async def test_missing_objects_say_so(adapter: Adapter) -> None:
    stored = await adapter.store.put("audit/o/t/1_before_b.png", PNG, "image/png")
    with pytest.raises(ObjectNotFoundError):
        await adapter.store.get("audit/o/t/absent.png", bucket=stored.bucket)


async def test_objects_are_write_once(adapter: Adapter) -> None:
    stored = await adapter.store.put("audit/o/t/1_after_c.png", PNG, "image/png")
    with pytest.raises(ObjectAlreadyExistsError):
        await adapter.store.put(stored.key, b"something else", "image/png", bucket=stored.bucket)
    assert await adapter.store.get(stored.key, bucket=stored.bucket) == PNG


async def test_keys_that_could_escape_are_refused(adapter: Adapter) -> None:
    for key in ("../etc/passwd", "/abs/key.png", "a//b.png", "a/../b.png", "a/b c.png"):
        with pytest.raises(ValueError, match="not a valid object key"):
            await adapter.store.put(key, PNG, "image/png")


async def test_list_keys_under_a_prefix(adapter: Adapter) -> None:
    first = await adapter.store.put("audit/o/t/1_before_d.png", PNG, "image/png")
    await adapter.store.put("audit/o/t/1_after_e.png", PNG, "image/png")
    await adapter.store.put("other/o/x.png", PNG, "image/png")
    keys = await adapter.store.list_keys("audit/o/", bucket=first.bucket)
    assert keys == ["audit/o/t/1_after_e.png", "audit/o/t/1_before_d.png"]
    assert await adapter.store.list_keys("audit/", bucket="nobucket-here") == []


async def test_a_presigned_link_downloads_the_object(adapter: Adapter) -> None:
    stored = await adapter.store.put("audit/o/t/2_before_f.png", PNG, "image/png")
    url = await adapter.store.presign_get(stored.key, bucket=stored.bucket, expires_s=600)
    response = await adapter.client.get(url)
    assert response.status_code == 200
    assert response.content == PNG
    assert response.headers["content-type"] == "image/png"


async def test_a_presigned_link_carries_its_expiry(adapter: Adapter) -> None:
    stored = await adapter.store.put("audit/o/t/2_after_g.png", PNG, "image/png")
    url = await adapter.store.presign_get(stored.key, bucket=stored.bucket, expires_s=1)
    query = parse_qs(urlsplit(url).query)
    if "X-Amz-Expires" in query:  # SigV4: signed start time plus lifetime
        assert query["X-Amz-Expires"] == ["1"]
        signed_at = datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        assert abs((datetime.now(UTC) - signed_at).total_seconds()) < 60
    else:
        assert 0 < int(query["exp"][0]) - time.time() <= 1


async def test_an_altered_or_expired_local_link_is_refused(tmp_path: Path) -> None:
    store = LocalObjectStore(tmp_path / "objects", LinkSigner(link_key(b"s" * 32)), base_url="http://finrpa.test")
    stored = await store.put("audit/o/t/1_before_h.png", PNG, "image/png")
    transport = httpx.ASGITransport(app=_app(store))
    async with httpx.AsyncClient(transport=transport) as client:
        url = await store.presign_get(stored.key, bucket=stored.bucket, expires_s=1)
        assert (await client.get(url)).status_code == 200
        assert (await client.get(url.replace("before_h", "before_i"))).status_code == 403
        assert (await client.get(url.replace("exp=", "exp=9"))).status_code == 403
        await asyncio.sleep(2.1)
        expired = await client.get(url)
        assert expired.status_code == 403
        assert "expired" in expired.json()["detail"]


def test_object_lock_mode_uses_one_locked_bucket_with_monthly_prefixes(s3_endpoint: str) -> None:
    client = s3_client(s3_endpoint)
    prefix = f"lock{uuid.uuid4().hex[:8]}"
    store = S3ObjectStore(client, bucket_prefix=prefix, mode="object_lock", lock_days=30, clock=lambda: NOVEMBER)
    stored = asyncio.run(store.put("audit/o/t/1_before_j.png", PNG, "image/png"))
    assert (stored.bucket, stored.key) == (prefix, "2026-11/audit/o/t/1_before_j.png")
    lock = client.get_object_lock_configuration(Bucket=prefix)["ObjectLockConfiguration"]
    assert lock["ObjectLockEnabled"] == "Enabled"
    retention = lock["Rule"]["DefaultRetention"]
    assert (retention["Mode"], retention["Days"]) == ("COMPLIANCE", 30)
