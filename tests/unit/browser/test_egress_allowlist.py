"""The allowlist admits exactly the portal hosts and listed extras, and says so as Chromium's proxy bypass list."""

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
    ("wss://evil.example.com/socket", False),
]


@pytest.mark.parametrize(("url", "allowed"), CASES)
def test_allows_url(url: str, allowed: bool) -> None:
    assert ALLOW.allows_url(url) is allowed


def test_an_empty_allowlist_blocks_every_network_url() -> None:
    nothing = EgressAllowlist.build([])
    assert not nothing.allows_url("http://127.0.0.1/")
    assert nothing.proxy_bypass() == "<-loopback>"


def test_the_proxy_bypass_list_names_exactly_the_allowed_hosts_after_the_loopback_rule() -> None:
    # Chromium connects these directly; everything else goes to the run's refusing proxy. The browser's own reading
    # of the list is checked against CASES in tests/integration/browser/test_egress.py.
    assert ALLOW.proxy_bypass() == "<-loopback>,ebank.example.com,127.0.0.1:8600,*.cdn.example.net"
    ipv6 = EgressAllowlist.build([], ["[::1]:8600"])
    assert ipv6.proxy_bypass() == "<-loopback>,[::1]:8600"
    assert ipv6.allows_url("http://[::1]:8600/bank")
    assert not ipv6.allows_url("http://[::1]:8601/bank")


@pytest.mark.parametrize("entry", ["", "host:port", "://", "[::1]x", "[::1]:port"])
def test_malformed_entries_are_refused(entry: str) -> None:
    with pytest.raises(InvalidActionError):
        EgressAllowlist.build([], [entry])
