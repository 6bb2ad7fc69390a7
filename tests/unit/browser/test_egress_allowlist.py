"""The allowlist admits exactly the portal hosts and listed extras; its browser-side pattern agrees."""

from __future__ import annotations

import pytest

from finrpa.browser import EgressAllowlist, InvalidActionError

ALLOW = EgressAllowlist.build(["https://ebank.example.com/login"], ["127.0.0.1:8600", "*.cdn.example.net"])

CASES = [
    ("https://ebank.example.com/home", True),
    ("https://ebank.example.com:8443/home", True),  # portal hosts: any port
    ("https://evil.example.com/", False),
    ("https://ebank.example.com.evil.io/", False),
    ("https://user@evil.io/?ebank.example.com", False),
    ("http://127.0.0.1:8600/bank", True),
    ("http://127.0.0.1:8601/bank", False),  # a pinned port is exact
    ("http://localhost:8600/", False),  # loopback only when listed
    ("https://img.cdn.example.net/a.png", True),
    ("https://cdn.example.net/a.png", False),  # a wildcard needs a sub-domain
    ("data:image/png;base64,AAAA", True),
    ("blob:https://ebank.example.com/123", True),
    ("wss://ebank.example.com/socket", True),
]


@pytest.mark.parametrize(("url", "allowed"), CASES)
def test_allows_url(url: str, allowed: bool) -> None:
    assert ALLOW.allows_url(url) is allowed


@pytest.mark.parametrize(("url", "allowed"), CASES)
def test_the_interception_pattern_never_lets_a_blocked_url_through(url: str, allowed: bool) -> None:
    # URLs the pattern does not match are not intercepted at all, so it must match every blocked URL.
    intercepted = ALLOW.blocked_pattern().search(url) is not None
    assert intercepted or allowed


def test_an_empty_allowlist_blocks_every_network_url() -> None:
    nothing = EgressAllowlist.build([])
    assert not nothing.allows_url("http://127.0.0.1/")
    assert nothing.blocked_pattern().search("http://127.0.0.1/")


@pytest.mark.parametrize("entry", ["", "host:port", "://"])
def test_malformed_entries_are_refused(entry: str) -> None:
    with pytest.raises(InvalidActionError):
        EgressAllowlist.build([], [entry])
