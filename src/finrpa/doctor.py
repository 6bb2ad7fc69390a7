"""`finrpa doctor`: checks the machine and the configuration, one line per check with what to do."""

from __future__ import annotations

import asyncio
import platform
import sys
from dataclasses import dataclass
from typing import Literal

import httpx

from finrpa.browser.locate import CHROMIUM_ARGS, MISSING_CHROMIUM_HELP, locate_chromium
from finrpa.config import Settings
from finrpa.db.migrate import migration_state
from finrpa.exceptions import DatabaseUnavailableError
from finrpa.kit.urls import mask_url_password

Status = Literal["OK", "MISSING", "FAIL", "SKIP"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str

    @property
    def blocking(self) -> bool:
        return self.status == "FAIL"


def _python() -> Check:
    return Check("python", "OK", f"Python {platform.python_version()} at {sys.executable}")


async def _database(settings: Settings) -> list[Check]:
    url = settings.resolved_database_url
    shown = mask_url_password(url)
    try:
        state = await migration_state(url)
    except DatabaseUnavailableError as exc:
        return [Check("database", "FAIL", exc.message)]
    checks = [Check("database", "OK", f"reachable at {shown}")]
    if state.up_to_date:
        checks.append(Check("migrations", "OK", f"at head {', '.join(sorted(state.heads))}"))
    else:
        current = ", ".join(sorted(state.current)) or "none applied"
        checks.append(Check("migrations", "MISSING", f"{current}; run `finrpa migrate`"))
    return checks


async def _chromium(settings: Settings) -> Check:
    location = locate_chromium(settings.chromium_path)
    if location is None:
        return Check("chromium", "FAIL", MISSING_CHROMIUM_HELP)
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=location.path, headless=True, args=list(CHROMIUM_ARGS), timeout=30_000
            )
            version = browser.version
            await browser.close()
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0]
        return Check("chromium", "FAIL", f"{location.path} found but did not launch: {first}")
    return Check(
        "chromium", "OK", f"{location.source} Chromium {version} at {location.path}, launches headless"
    )


async def _redis(settings: Settings) -> Check:
    if not settings.redis_url:
        return Check(
            "redis", "SKIP", "not configured; in-process bus and cache are used (set FINRPA_REDIS_URL)"
        )
    import redis.asyncio as redis
    from redis.exceptions import RedisError

    client = redis.from_url(settings.redis_url, socket_connect_timeout=3)
    try:
        await client.ping()
    except (RedisError, OSError) as exc:
        return Check(
            "redis",
            "FAIL",
            f"{mask_url_password(settings.redis_url)} unreachable ({exc}); "
            "start Redis or unset FINRPA_REDIS_URL",
        )
    finally:
        await client.aclose()
    return Check("redis", "OK", f"reachable at {mask_url_password(settings.redis_url)}")


async def _http_service(name: str, url: str | None, unset_help: str) -> Check:
    if not url:
        return Check(name, "SKIP", unset_help)
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            await client.get(url)
    except httpx.HTTPError as exc:
        return Check(
            name, "FAIL", f"{mask_url_password(url)} unreachable ({type(exc).__name__}); check the URL"
        )
    return Check(name, "OK", f"reachable at {mask_url_password(url)}")


async def run_checks(settings: Settings) -> list[Check]:
    checks = [_python()]
    checks += await _database(settings)
    checks.append(await _chromium(settings))
    checks.append(await _redis(settings))
    checks.append(
        await _http_service(
            "s3",
            settings.s3_endpoint_url,
            "not configured; screenshots go to the data folder "
            "(set FINRPA_S3_ENDPOINT_URL for MinIO/Ceph/AWS)",
        )
    )
    llm_help = "not configured; deterministic mode (templates and skills only; set FINRPA_LLM_PROVIDER)"
    checks.append(
        await _http_service(
            "llm", settings.llm_base_url if settings.llm_provider != "none" else None, llm_help
        )
    )
    return checks


def run_doctor(settings: Settings) -> list[Check]:
    return asyncio.run(run_checks(settings))
