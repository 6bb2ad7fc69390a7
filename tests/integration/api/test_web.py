"""The built dashboard is served at / with single-page fallback; API paths never fall back to it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from finrpa.api import ApiOptions, create_app

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _client(web_dist: Path | None) -> httpx.AsyncClient:
    app = create_app(options=ApiOptions(worker=False, dispatcher=False, web_dist=web_dist))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://finrpa.test")


async def test_files_are_served_and_other_paths_fall_back_to_index(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><div id=root></div>")
    (tmp_path / "assets" / "app-1a2b.js").write_text("console.log('finrpa')")
    async with _client(tmp_path) as client:
        asset = await client.get("/assets/app-1a2b.js")
        assert asset.status_code == 200 and "immutable" in asset.headers["cache-control"]
        for path in ("/", "/tasks/123", "/approvals"):
            page = await client.get(path)
            assert page.status_code == 200 and "id=root" in page.text
        escape = await client.get("/..%2F..%2Fetc%2Fpasswd")
        assert "root:" not in escape.text
        api = await client.get("/api/v1/not-a-route")
        assert api.status_code == 404 and api.headers["content-type"] == "application/problem+json"


async def test_without_a_build_the_home_page_says_how_to_make_one(tmp_path: Path) -> None:
    async with _client(tmp_path / "missing") as client:
        page = await client.get("/")
    assert page.status_code == 200 and "npm run build" in page.text
