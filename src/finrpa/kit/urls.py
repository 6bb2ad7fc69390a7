"""URL helpers that are safe to print."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def mask_url_password(url: str) -> str:
    """Return ``url`` with any password replaced by ``***`` so it can go into a message or a log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))
