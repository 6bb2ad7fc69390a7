"""Browser runtime: Chromium management, page snapshots, verified actions, screenshots, downloads."""
