"""Access tokens (HS256 JWTs, 15 minutes, aud/iss/typ checked, algorithm pinned) and opaque secrets.

Keys are derived from FINRPA_SECRET_KEY with HKDF, one per purpose, so the access-token key, the
refresh-token hashing key and the API-key hashing key never coincide. Refresh tokens and API keys are
random opaque strings stored only as HMAC-SHA256 digests: a database dump reveals none of them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import jwt

from finrpa.config import Settings
from finrpa.db.base import new_id, utcnow
from finrpa.identity.errors import AuthenticationError
from finrpa.kit.crypto import derive_key as derive_purpose_key

ALGORITHM = "HS256"
ACCESS_TYPE = "access"
REFRESH_PREFIX = "frt_"
API_KEY_PREFIX = "fk_"
_REQUIRED_CLAIMS = ["exp", "iat", "nbf", "iss", "aud", "sub", "jti", "org", "sid", "typ"]
Purpose = Literal["access-jwt", "refresh-token", "api-key"]


def derive_key(settings: Settings, purpose: Purpose) -> bytes:
    return derive_purpose_key(settings.key("secret_key"), purpose, salt=b"finrpa-identity")


def digest(settings: Settings, purpose: Purpose, value: str) -> str:
    """Keyed digest of a refresh token or API key, as stored in the database."""
    return hmac.new(derive_key(settings, purpose), value.encode(), hashlib.sha256).hexdigest()


def new_refresh_token() -> str:
    return REFRESH_PREFIX + secrets.token_urlsafe(32)


def new_api_key() -> tuple[str, str]:
    """(prefix shown in listings, full key shown once). The prefix is unique and not secret."""
    prefix = API_KEY_PREFIX + secrets.token_hex(6)
    return prefix, f"{prefix}_{secrets.token_urlsafe(32)}"


@dataclass(frozen=True, slots=True)
class AccessClaims:
    user_id: str
    org_id: str
    session_id: str
    token_id: str
    expires_at: datetime


def issue_access_token(
    settings: Settings, *, user_id: str, org_id: str, session_id: str, now: datetime | None = None
) -> tuple[str, AccessClaims]:
    issued = now or utcnow()
    claims = AccessClaims(
        user_id=user_id,
        org_id=org_id,
        session_id=session_id,
        token_id=new_id(),
        expires_at=issued + timedelta(seconds=settings.access_token_ttl_s),
    )
    payload = {
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "sub": user_id,
        "org": org_id,
        "sid": session_id,
        "jti": claims.token_id,
        "typ": ACCESS_TYPE,
        "iat": issued,
        "nbf": issued,
        "exp": claims.expires_at,
    }
    token = jwt.encode(payload, derive_key(settings, "access-jwt"), algorithm=ALGORITHM)
    return token, claims


def decode_access_token(settings: Settings, token: str) -> AccessClaims:
    """Verify signature, algorithm, expiry, issuer, audience and type; raise AuthenticationError otherwise."""
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != ALGORITHM:
            raise AuthenticationError(f"Access tokens must be signed with {ALGORITHM}; sign in again.")
        payload = jwt.decode(
            token,
            derive_key(settings, "access-jwt"),
            algorithms=[ALGORITHM],
            audience=settings.jwt_audience,
            issuer=settings.jwt_issuer,
            options={"require": _REQUIRED_CLAIMS},
            leeway=5,
        )
    except jwt.ExpiredSignatureError as exc:
        raise AuthenticationError("The access token has expired; refresh it or sign in again.") from exc
    except jwt.InvalidTokenError as exc:
        raise AuthenticationError(f"The access token is not valid ({exc}); sign in again.") from exc
    if payload["typ"] != ACCESS_TYPE:
        raise AuthenticationError("This token is not an access token; sign in again.")
    return AccessClaims(
        user_id=str(payload["sub"]),
        org_id=str(payload["org"]),
        session_id=str(payload["sid"]),
        token_id=str(payload["jti"]),
        expires_at=datetime.fromtimestamp(int(payload["exp"]), tz=utcnow().tzinfo),
    )
