"""Signed download links of the local object store: only the exact link, only until it expires."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from finrpa.objectstore.links import LinkSigner, link_key
from finrpa.objectstore.port import InvalidLinkError


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _parts(url: str) -> tuple[str, int, str]:
    split = urlsplit(url)
    query = parse_qs(split.query)
    return split.path, int(query["exp"][0]), query["sig"][0]


def test_a_link_works_until_it_expires_and_not_after() -> None:
    clock = Clock(1_000_000.0)
    signer = LinkSigner(link_key(b"k" * 32), clock)
    url = signer.url("http://127.0.0.1:8000", "finrpa-audit-2026-11", "audit/o/t/1_before_x.png", 3600)
    path, expires_at, signature = _parts(url)
    assert path == "/api/v1/objects/finrpa-audit-2026-11/audit/o/t/1_before_x.png"
    assert expires_at == 1_000_000 + 3600
    signer.check("finrpa-audit-2026-11", "audit/o/t/1_before_x.png", expires_at, signature)
    clock.now = expires_at + 1
    with pytest.raises(InvalidLinkError, match="expired"):
        signer.check("finrpa-audit-2026-11", "audit/o/t/1_before_x.png", expires_at, signature)


def test_a_link_cannot_be_stretched_or_pointed_elsewhere() -> None:
    signer = LinkSigner(link_key(b"k" * 32), Clock(0.0))
    url = signer.url("http://h", "finrpa-audit-2026-11", "audit/o/t/1_before_x.png", 60)
    _, expires_at, signature = _parts(url)
    with pytest.raises(InvalidLinkError, match="not valid"):
        signer.check("finrpa-audit-2026-11", "audit/o/t/1_before_x.png", expires_at + 3600, signature)
    with pytest.raises(InvalidLinkError, match="not valid"):
        signer.check("finrpa-audit-2026-11", "audit/o/t/2_after_y.png", expires_at, signature)
    other = LinkSigner(link_key(b"j" * 32), Clock(0.0))
    with pytest.raises(InvalidLinkError, match="not valid"):
        other.check("finrpa-audit-2026-11", "audit/o/t/1_before_x.png", expires_at, signature)
