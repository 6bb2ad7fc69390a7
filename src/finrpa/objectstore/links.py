"""HMAC-signed expiring download links of the local object store (``/api/v1/objects/...?exp=&sig=``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable
from urllib.parse import quote

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from finrpa.objectstore.port import InvalidLinkError

LINK_PATH = "/api/v1/objects"


def link_key(secret_key: bytes) -> bytes:
    """The link-signing key, derived from FINRPA_SECRET_KEY so that no other use shares it."""
    return HKDF(
        algorithm=hashes.SHA256(), length=32, salt=b"finrpa-objects-v1", info=b"finrpa object download links"
    ).derive(secret_key)


class LinkSigner:
    """Signs and checks ``(bucket, key, expiry)`` triples."""

    def __init__(self, key: bytes, clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self._clock = clock

    def signature(self, bucket: str, key: str, expires_at: int) -> str:
        message = f"GET\n{bucket}\n{key}\n{expires_at}".encode()
        digest = hmac.new(self._key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def url(self, base_url: str, bucket: str, key: str, expires_s: int) -> str:
        if expires_s <= 0:
            raise ValueError("A link must be valid for at least one second.")
        expires_at = int(self._clock()) + expires_s
        path = f"{LINK_PATH}/{quote(bucket)}/{quote(key)}"
        return f"{base_url.rstrip('/')}{path}?exp={expires_at}&sig={self.signature(bucket, key, expires_at)}"

    def check(self, bucket: str, key: str, expires_at: int, signature: str) -> None:
        """Raise InvalidLinkError unless the signature is right and the link has not expired."""
        expected = self.signature(bucket, key, expires_at)
        if not hmac.compare_digest(expected, signature):
            raise InvalidLinkError("This download link is not valid. Ask FinRPA for a new link.")
        if self._clock() > expires_at:
            raise InvalidLinkError("This download link has expired. Ask FinRPA for a new link.")
