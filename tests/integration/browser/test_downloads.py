"""Downloads land in the run's folder with SHA-256, size and a type from their magic bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from finrpa.browser import (
    BrowserManager,
    Controller,
    Download,
    DownloadRejectedError,
    PageSnapshot,
    RunBrowser,
    RunBrowserConfig,
    Target,
)
from tests.fixtures.browser import PAGES, StaticSite

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


def _download(snapshot: PageSnapshot, name: str) -> Download:
    element = snapshot.find(name=name)[0]
    return Download(snapshot_id=snapshot.snapshot_id, target=Target(ref=element.ref, fingerprint=element.fingerprint),
                    timeout_ms=10_000)


async def _page(run: RunBrowser, site: StaticSite) -> tuple[Controller, PageSnapshot]:
    controller = Controller(run, screenshots=False)
    await controller.navigate(site.url("downloads.html"))
    return controller, await controller.observe()


async def test_server_attachment_is_saved_hashed_and_typed(run_browser: RunBrowser, static_site: StaticSite) -> None:
    controller, snapshot = await _page(run_browser, static_site)
    result = await controller.execute(_download(snapshot, "导出CSV"))

    saved = result.download
    assert saved is not None
    expected = (PAGES / "files" / "statement.csv").read_bytes()
    assert saved.path.parent == run_browser.config.downloads_dir
    assert saved.path.read_bytes() == expected
    assert (saved.size, saved.sha256, saved.media_type) == (
        len(expected), hashlib.sha256(expected).hexdigest(), "text/csv"
    )


async def test_javascript_blob_download_works_and_cannot_escape_the_folder(
    run_browser: RunBrowser, static_site: StaticSite
) -> None:
    controller, snapshot = await _page(run_browser, static_site)
    pdf = (await controller.execute(_download(snapshot, "导出PDF"))).download
    archive = (await controller.execute(_download(snapshot, "导出压缩包"))).download

    assert pdf is not None and pdf.media_type == "application/pdf" and pdf.filename == "statement.pdf"
    assert archive is not None and archive.media_type == "application/zip"
    assert archive.path.parent == run_browser.config.downloads_dir and ".." not in archive.filename


async def test_a_download_over_the_size_limit_is_rejected_and_deleted(
    browser_manager: BrowserManager, static_site: StaticSite, tmp_path: Path
) -> None:
    config = RunBrowserConfig(run_id="limit", downloads_dir=tmp_path / "dl", portal_urls=[static_site.base_url],
                              max_download_bytes=16)
    run = await browser_manager.new_run(config)
    try:
        controller, snapshot = await _page(run, static_site)
        with pytest.raises(DownloadRejectedError, match="over the run's limit of 16"):
            await controller.execute(_download(snapshot, "导出CSV"))
    finally:
        await run.close()
    assert list((tmp_path / "dl").iterdir()) == []
