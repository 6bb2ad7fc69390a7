"""Browser fixtures for the browser runtime's integration tests (one Chromium per test module)."""

from tests.fixtures.browser import browser_manager, chromium_browser, run_browser, static_site

__all__ = ["browser_manager", "chromium_browser", "run_browser", "static_site"]
