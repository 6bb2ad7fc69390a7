"""Find a Chromium executable: configured path, then Playwright-managed, then the system's."""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Flags that keep a headless Chromium quiet on a closed network and inside containers running as root.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Chromium asks Google's autofill servers about every form it sees: the form structure of a portal must not
    # leave the bank (the run's egress proxy would refuse it, and report it as the run's blocked egress). A URL it
    # cannot fetch keeps it from asking; a --disable-features flag would replace the driver's own list.
    "--autofill-server-url=about:blank",
)


@dataclass(frozen=True)
class ChromiumLocation:
    path: str
    source: str  # "configured", "playwright" or "system"


def _playwright_managed() -> str | None:
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    patterns = ("chromium-*/chrome-linux*/chrome", "chromium_headless_shell-*/chrome-*/headless_shell")
    for pattern in patterns:
        for candidate in sorted(glob.glob(str(root / pattern)), reverse=True):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def locate_chromium(configured: str | None = None) -> ChromiumLocation | None:
    """Return where Chromium is, or None when it is nowhere (callers say what to install)."""
    if configured:
        return ChromiumLocation(configured, "configured") if os.access(configured, os.X_OK) else None
    managed = _playwright_managed()
    if managed:
        return ChromiumLocation(managed, "playwright")
    for name in SYSTEM_NAMES:
        found = shutil.which(name)
        if found:
            return ChromiumLocation(found, "system")
    return None


MISSING_CHROMIUM_HELP = (
    "Chromium not found. Run `make setup` (installs Playwright's Chromium, or Debian's `chromium` as root), "
    "or set FINRPA_CHROMIUM_PATH to a Chromium executable."
)
