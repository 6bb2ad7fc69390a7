"""DingTalk robot signing and FinRPA webhook signatures, checked against an independent computation."""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import parse_qs, quote_plus, urlsplit

import pytest

from finrpa.notify.signing import (
    SignatureInvalidError,
    dingtalk_sign,
    dingtalk_signed_url,
    verify_webhook_signature,
    webhook_signature,
)

SECRET = "test-signing-secret-not-real"


def test_dingtalk_signed_url_carries_timestamp_and_the_documented_signature() -> None:
    timestamp = 1_700_000_000_123
    url = dingtalk_signed_url("https://oapi.dingtalk.com/robot/send?access_token=abc", SECRET, timestamp)

    digest = hmac.new(SECRET.encode(), f"{timestamp}\n{SECRET}".encode(), hashlib.sha256).digest()
    expected = base64.b64encode(digest).decode()
    query = parse_qs(urlsplit(url).query)
    assert query["access_token"] == ["abc"]
    assert query["timestamp"] == [str(timestamp)]
    assert query["sign"] == [expected]
    assert f"sign={quote_plus(expected)}" in url  # '+', '/' and '=' are URL-encoded on the wire
    assert dingtalk_sign(SECRET, timestamp) == expected


def test_webhook_signature_verifies_and_rejects_tampering_replay_and_wrong_secret() -> None:
    body = b'{"event":"run.failed","data":{"run_id":"r1"}}'
    signature = webhook_signature(SECRET, 1_000, body)
    expected = hmac.new(SECRET.encode(), b"1000." + body, hashlib.sha256).hexdigest()
    assert signature == f"sha256={expected}"

    verify_webhook_signature(
        SECRET, body=body, timestamp_header="1000", signature_header=signature, now=1_010
    )
    with pytest.raises(SignatureInvalidError, match="does not match"):
        verify_webhook_signature(
            SECRET, body=body + b" ", timestamp_header="1000", signature_header=signature, now=1_010
        )
    with pytest.raises(SignatureInvalidError, match="does not match"):
        verify_webhook_signature(
            "another-secret", body=body, timestamp_header="1000", signature_header=signature, now=1_010
        )
    with pytest.raises(SignatureInvalidError, match="replay"):
        verify_webhook_signature(
            SECRET, body=body, timestamp_header="1000", signature_header=signature, now=2_000
        )
    with pytest.raises(SignatureInvalidError, match="integer"):
        verify_webhook_signature(
            SECRET, body=body, timestamp_header="soon", signature_header=signature, now=1_000
        )
