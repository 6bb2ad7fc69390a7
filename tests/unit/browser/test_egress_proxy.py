"""What the refusing proxy reads from a request head Chromium sends it, and that it refuses every request."""

from __future__ import annotations

import asyncio

import pytest

from finrpa.browser.egress_proxy import RefusedRequest, RefusingProxy, parse_head
from finrpa.browser.runtime import environment_proxy


def _head(*lines: str) -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def test_a_tunnel_names_only_host_and_port() -> None:
    request = parse_head(_head("CONNECT evil.example.com:443 HTTP/1.1", "Host: evil.example.com:443"))
    assert request == RefusedRequest("evil.example.com:443", "evil.example.com", "other", False)
    assert parse_head(_head("CONNECT [::1]:8601 HTTP/1.1")) == RefusedRequest("::1:8601", "::1", "other", False)


def test_a_plain_http_request_is_reported_without_its_query() -> None:
    request = parse_head(
        _head(
            "GET http://tracker.example.invalid/p.png?account=6222020200112233445 HTTP/1.1",
            "Accept: image/avif,image/webp,image/apng,image/*,*/*;q=0.8",
        )
    )
    assert request == RefusedRequest("http://tracker.example.invalid/p.png", "tracker.example.invalid", "image", False)


@pytest.mark.parametrize(
    ("headers", "kind", "navigation"),
    [
        (("Sec-Fetch-Dest: document", "Sec-Fetch-Mode: navigate"), "document", True),
        (("Sec-Fetch-Dest: iframe", "Sec-Fetch-Mode: navigate"), "document", True),
        (("Sec-Fetch-Dest: empty", "Sec-Fetch-Mode: cors"), "fetch", False),
        (("Sec-Fetch-Dest: style", "Sec-Fetch-Mode: no-cors"), "stylesheet", False),
        (("Accept: text/html,application/xhtml+xml", "Upgrade-Insecure-Requests: 1"), "document", True),
        (("Accept: text/css,*/*;q=0.1",), "stylesheet", False),
        (("Accept: */*",), "fetch", False),
        (("Upgrade: websocket", "Connection: Upgrade"), "websocket", False),
        ((), "other", False),
    ],
)
def test_the_kind_of_request_comes_from_the_headers_chromium_sends(
    headers: tuple[str, ...], kind: str, navigation: bool
) -> None:
    request = parse_head(_head("GET http://localhost:8601/x HTTP/1.1", *headers))
    assert request is not None
    assert (request.resource_type, request.navigation) == (kind, navigation)


@pytest.mark.parametrize(
    "head",
    [b"GARBAGE\r\n\r\n", _head("GET /relative HTTP/1.1"), _head("CONNECT nohost HTTP/1.1"), _head("GET http://x/ FTP")],
)
def test_what_is_not_a_proxy_request_is_not_reported(head: bytes) -> None:
    assert parse_head(head) is None


@pytest.mark.asyncio
async def test_the_proxy_reports_and_refuses_and_never_forwards() -> None:
    seen: list[RefusedRequest] = []
    proxy = RefusingProxy(seen.append)
    address = await proxy.start()
    host, port = address.removeprefix("http://").split(":")
    try:
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(_head("CONNECT exfil.example.com:443 HTTP/1.1"))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        # a connection that never sends a head (a preconnect) is closed without a report
        _, idle = await asyncio.open_connection(host, int(port))
        idle.close()
    finally:
        await proxy.close()
    assert not answer.startswith(b"HTTP/")  # nothing a browser could take as the host's answer
    assert [r.host for r in seen] == ["exfil.example.com"]
    with pytest.raises(OSError):  # closed: the browser's connection is refused, so egress fails closed
        await asyncio.open_connection(host, int(port))


def test_an_outbound_proxy_in_the_environment_means_egress_by_route(monkeypatch: pytest.MonkeyPatch) -> None:
    # Chromium follows these variables; a context proxy would bypass that outbound proxy, so the manager then
    # enforces the allowlist with a route instead (both ways: tests/integration/browser/test_egress.py).
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert not environment_proxy()
    monkeypatch.setenv("https_proxy", "http://proxy.bank.internal:3128")
    assert environment_proxy()
