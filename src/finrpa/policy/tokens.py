"""Capability tokens: short-lived, Ed25519-signed (JWT, alg EdDSA) proof that a node holds a manifest.

A token is bound to its organisation, run, node, audience (who may accept it: ``"browser"``,
``"skill:FormFillSkill"``, ``"agent:<node>"`` …) and to the manifest it carries (``mh`` is the SHA-256 of the
manifest's rights; a token whose embedded manifest does not hash to ``mh`` is invalid). Its ``jti`` is counted
by a :class:`~finrpa.policy.token_store.TokenUseStore` on every use; a use beyond ``max_uses`` is a replay.
A child agent never gets a copy of its parent's token: :meth:`CapabilityTokens.attenuate` issues a new one for
a manifest that holds the same or fewer rights, expires no later and allows no more uses — anything wider is
refused with :class:`~finrpa.policy.errors.AttenuationWidening`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import BaseModel, ValidationError

from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.policy.errors import (
    AttenuationWidening,
    TokenAudienceMismatch,
    TokenBindingMismatch,
    TokenExpired,
    TokenInvalid,
)
from finrpa.policy.keys import key_id, signing_key
from finrpa.policy.manifest import ArgumentBounds, CapabilityManifest
from finrpa.policy.token_store import TokenUseStore

ISSUER = "finrpa"
ALGORITHM = "EdDSA"
_REQUIRED = ["exp", "iat", "nbf", "aud", "iss", "sub", "jti"]


class CapabilityClaims(BaseModel):
    iss: str
    sub: str
    org: str
    aud: str
    run: str
    node: str
    jti: str
    iat: int
    nbf: int
    exp: int
    max_uses: int
    mh: str
    cap: dict[str, Any]
    parent: str | None = None
    depth: int = 0


@dataclass(frozen=True)
class VerifiedCapability:
    claims: CapabilityClaims
    manifest: CapabilityManifest


class CapabilityTokens:
    """Issues, verifies and attenuates capability tokens with one signing key and one use store."""

    def __init__(
        self,
        key: Ed25519PrivateKey,
        uses: TokenUseStore,
        *,
        default_ttl_s: int = 300,
        max_ttl_s: int = 3600,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._key = key
        self._public: Ed25519PublicKey = key.public_key()
        self._kid = key_id(key)
        self._uses = uses
        self._default_ttl_s = default_ttl_s
        self._max_ttl_s = max_ttl_s
        self._clock = clock

    @classmethod
    def from_settings(cls, settings: Settings, uses: TokenUseStore) -> CapabilityTokens:
        return cls(
            signing_key(settings),
            uses,
            default_ttl_s=settings.capability_token_ttl_s,
            max_ttl_s=settings.capability_token_max_ttl_s,
        )

    def issue(
        self, manifest: CapabilityManifest, *, audience: str, ttl_s: int | None = None, max_uses: int = 1
    ) -> str:
        """A token for ``manifest``, valid for ``ttl_s`` seconds (capped) and ``max_uses`` uses."""
        now = self._clock()
        expires = now + timedelta(seconds=min(ttl_s or self._default_ttl_s, self._max_ttl_s))
        return self._sign(manifest, audience=audience, now=now, expires=expires, max_uses=max_uses, parent=None)

    async def verify(
        self,
        token: str,
        *,
        audience: str,
        run_id: str | None = None,
        node_id: str | None = None,
        consume: bool = True,
    ) -> VerifiedCapability:
        """Check signature, expiry, audience, binding and manifest hash, then count one use (unless
        ``consume`` is False). Raises a TokenRejected subclass that says what is wrong."""
        verified = self._decode(token, audience=audience)
        claims = verified.claims
        if run_id is not None and claims.run != run_id:
            raise TokenBindingMismatch(f"This capability token belongs to run {claims.run}, not {run_id}.")
        if node_id is not None and claims.node != node_id:
            raise TokenBindingMismatch(f"This capability token belongs to node {claims.node}, not {node_id}.")
        if consume:
            expires_at = datetime.fromtimestamp(claims.exp, tz=self._clock().tzinfo)
            await self._uses.consume(claims.jti, org_id=claims.org, max_uses=claims.max_uses, expires_at=expires_at)
        return verified

    def attenuate(
        self,
        parent_token: str,
        child: CapabilityManifest,
        *,
        audience: str,
        ttl_s: int | None = None,
        max_uses: int = 1,
    ) -> str:
        """A token for a child agent holding ``child`` ⊆ the parent's manifest; widening is refused."""
        parent = self._decode(parent_token, audience=None)
        widening = child.widening_over(parent.manifest)
        if max_uses > parent.claims.max_uses:
            widening.append(f"max_uses {max_uses} exceeds the parent's {parent.claims.max_uses}")
        if widening:
            raise AttenuationWidening(
                "A child capability may hold only the same or fewer rights than its parent: "
                + "; ".join(widening)
                + "."
            )
        now = self._clock()
        parent_expiry = datetime.fromtimestamp(parent.claims.exp, tz=now.tzinfo)
        expires = min(now + timedelta(seconds=min(ttl_s or self._default_ttl_s, self._max_ttl_s)), parent_expiry)
        return self._sign(
            child, audience=audience, now=now, expires=expires, max_uses=max_uses, parent=parent.claims
        )

    def _sign(
        self,
        manifest: CapabilityManifest,
        *,
        audience: str,
        now: datetime,
        expires: datetime,
        max_uses: int,
        parent: CapabilityClaims | None,
    ) -> str:
        if max_uses < 1:
            raise ValueError("A capability token must allow at least one use.")
        claims = CapabilityClaims(
            iss=ISSUER,
            sub=manifest.principal_id,
            org=manifest.org_id,
            aud=audience,
            run=manifest.run_id,
            node=manifest.node_id,
            jti=uuid.uuid4().hex,
            iat=int(now.timestamp()),
            nbf=int(now.timestamp()),
            exp=int(expires.timestamp()),
            max_uses=max_uses,
            mh=manifest.digest(),
            cap=manifest.rights(),
            parent=parent.jti if parent else None,
            depth=parent.depth + 1 if parent else 0,
        )
        return jwt.encode(claims.model_dump(), self._key, algorithm=ALGORITHM, headers={"kid": self._kid})

    def _decode(self, token: str, *, audience: str | None) -> VerifiedCapability:
        try:
            payload = jwt.decode(
                token,
                self._public,
                algorithms=[ALGORITHM],
                audience=audience,
                issuer=ISSUER,
                options={"require": _REQUIRED, "verify_aud": audience is not None},
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired("This capability token has expired; request a new one for this step.") from exc
        except jwt.InvalidAudienceError as exc:
            raise TokenAudienceMismatch(
                f"This capability token was not issued for {audience!r}; it cannot be used here."
            ) from exc
        except jwt.InvalidTokenError as exc:
            raise TokenInvalid(f"This capability token is not valid ({exc}); request a new one.") from exc
        return _with_manifest(payload)


def _with_manifest(payload: dict[str, Any]) -> VerifiedCapability:
    try:
        claims = CapabilityClaims.model_validate(payload)
        rights = claims.cap
        manifest = CapabilityManifest(
            org_id=str(rights["org_id"]),
            run_id=str(rights["run_id"]),
            node_id=str(rights["node_id"]),
            principal_id=str(rights["principal_id"]),
            grants={operation: frozenset(hosts) for operation, hosts in dict(rights["grants"]).items()},
            approval_operations=frozenset(rights["approval_operations"]),
            data_classes=frozenset(rights["data_classes"]),
            bounds=ArgumentBounds.model_validate(rights["bounds"]),
        )
    except (KeyError, TypeError, ValidationError) as exc:
        raise TokenInvalid("This capability token does not carry a well-formed manifest.") from exc
    if manifest.digest() != claims.mh:
        raise TokenInvalid("This capability token's manifest does not match its hash; it was altered.")
    if (manifest.org_id, manifest.run_id, manifest.node_id) != (claims.org, claims.run, claims.node):
        raise TokenInvalid("This capability token's manifest is bound to another run or node than the token.")
    return VerifiedCapability(claims=claims, manifest=manifest)
