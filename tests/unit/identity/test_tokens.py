"""Access-token attacks are rejected: alg none, wrong key, other algorithm, expired, wrong audience/issuer/type."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import jwt
import pytest
from pydantic import SecretStr

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.identity.errors import AuthenticationError
from finrpa.identity.tokens import decode_access_token, derive_key, digest, issue_access_token


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(env="development", data_dir=tmp_path)


def claims(settings: Settings, **changes: object) -> dict[str, object]:
    now = utcnow()
    payload: dict[str, object] = {
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "sub": "user-1",
        "org": "org-1",
        "sid": "session-1",
        "jti": "token-1",
        "typ": "access",
        "iat": now,
        "nbf": now,
        "exp": now + timedelta(minutes=15),
    }
    payload.update(changes)
    return {key: value for key, value in payload.items() if value is not None}


def forge(settings: Settings, algorithm: str = "HS256", key: bytes | None = None, **changes: object) -> str:
    return jwt.encode(claims(settings, **changes), key or derive_key(settings, "access-jwt"), algorithm=algorithm)


def b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, default=str).encode()).rstrip(b"=").decode()


def test_a_genuine_token_round_trips_and_lives_fifteen_minutes(settings: Settings) -> None:
    token, issued = issue_access_token(settings, user_id="u", org_id="o", session_id="s")
    decoded = decode_access_token(settings, token)
    assert (decoded.user_id, decoded.org_id, decoded.session_id) == ("u", "o", "s")
    assert timedelta(minutes=14) < issued.expires_at - utcnow() <= timedelta(minutes=15)


def test_alg_none_is_rejected(settings: Settings) -> None:
    payload = {key: (int(v.timestamp()) if hasattr(v, "timestamp") else v) for key, v in claims(settings).items()}
    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(payload)}."
    with pytest.raises(AuthenticationError, match="HS256"):
        decode_access_token(settings, unsigned)


def test_another_algorithm_with_the_right_key_is_rejected(settings: Settings) -> None:
    with pytest.warns(jwt.warnings.InsecureKeyLengthWarning):  # PyJWT's own warning when forging HS512
        token = forge(settings, algorithm="HS512")
    with pytest.raises(AuthenticationError, match="HS256"):
        decode_access_token(settings, token)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"key": b"k" * 32}, "not valid"),
        ({"exp": utcnow() - timedelta(minutes=1), "iat": utcnow() - timedelta(minutes=16)}, "expired"),
        ({"aud": "some-other-service"}, "not valid"),
        ({"iss": "someone-else"}, "not valid"),
        ({"typ": "refresh"}, "not an access token"),
        ({"sid": None}, "not valid"),
        ({"nbf": utcnow() + timedelta(days=1)}, "not valid"),  # far ahead: collection may precede the run by minutes
    ],
    ids=["wrong-key", "expired", "wrong-audience", "wrong-issuer", "wrong-type", "missing-session", "not-yet-valid"],
)
def test_forged_or_stale_tokens_are_rejected(settings: Settings, changes: dict[str, object], message: str) -> None:
    key = changes.pop("key", None)
    token = forge(settings, key=key if isinstance(key, bytes) else None, **changes)
    with pytest.raises(AuthenticationError, match=message):
        decode_access_token(settings, token)


def test_a_tampered_payload_breaks_the_signature(settings: Settings) -> None:
    header, _, signature = forge(settings).split(".")
    payload = {
        k: (int(v.timestamp()) if hasattr(v, "timestamp") else v) for k, v in claims(settings, org="org-2").items()
    }
    with pytest.raises(AuthenticationError, match="not valid"):
        decode_access_token(settings, f"{header}.{b64(payload)}.{signature}")


def test_keys_differ_per_purpose_and_per_installation(settings: Settings, tmp_path: Path) -> None:
    other = settings.model_copy(update={"secret_key": SecretStr("x" * 48)})
    assert derive_key(settings, "access-jwt") != derive_key(settings, "refresh-token")
    assert derive_key(settings, "access-jwt") != derive_key(other, "access-jwt")
    assert digest(settings, "refresh-token", "t") != digest(other, "refresh-token", "t")
