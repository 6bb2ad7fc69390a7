"""The action cache (SPEC C7): LLM decisions that worked, reused when the same organisation meets the same
cleaned page with the same goal — and trusted only after they verify again on the live page.

Key: ``action_cache:{org_id}:{dom_hash}:{goal_hash}`` (dom_hash = SHA-256 of the cleaned DOM, from
``finrpa.browser``; goal_hash = MD5 of the normalised goal), TTL 24 h by default. A value holds element
fingerprints, action types and value *placeholders* only; :meth:`ActionCache.put` refuses raw snapshot refs,
literal values, extracted data and known secret values. The organisation is part of every key and every
call, so one tenant can neither read nor clear another's entries.

Counting: a lookup that finds nothing is a miss at once; a lookup that finds an entry counts as a hit only
when :meth:`ActionCache.record_verification` reports it verified; a failed verification evicts the entry
and counts a miss with its reason (self-healing).
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from finrpa.cache import CacheUnavailableError, KeyValueStore
from finrpa.config import Settings
from finrpa.db.base import utcnow
from finrpa.exceptions import NotFoundError
from finrpa.llm.cache_health import CacheHealth, CacheStats, DetectorSettings, HitRateDropAlert
from finrpa.llm.errors import ActionCacheRejected
from finrpa.llm.redaction import contains_secret

logger = logging.getLogger(__name__)

KEY_PREFIX = "action_cache"
ActionType = Literal[
    "navigate", "click", "fill", "select", "check", "uncheck", "press", "upload", "wait_for", "scroll",
    "switch_tab", "accept_dialog", "dismiss_dialog", "download", "extract", "complete",
]  # fmt: skip
_VALUE_ACTIONS = frozenset({"navigate", "fill", "select", "upload"})
_PLACEHOLDER = re.compile(r"^\{\{\s*(secret:)?[A-Za-z_][A-Za-z0-9_.]{0,63}\s*\}\}$")
_KEY_NAME = re.compile(r"^[A-Za-z0-9]+(\+[A-Za-z0-9]+)*$")
_SNAPSHOT_REF = re.compile(r"^e\d+$")
_ORG_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_DOM_HASH = re.compile(r"^[0-9a-f]{64}$")
AlertSink = Callable[[HitRateDropAlert], Awaitable[None]]


class ElementFingerprint(BaseModel):
    """How to find an element again (SPEC C1): never a snapshot ref, never the element's value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str = Field(default="", max_length=40)
    name: str = Field(default="", max_length=200)
    label: str = Field(default="", max_length=200)
    container: str = Field(default="", max_length=200, description="Nearest container heading or legend.")
    tag: str = Field(default="", max_length=40)
    index: int = Field(default=0, ge=0, description="Index among elements with the same role and name.")
    peer_count: int = Field(default=1, ge=1)
    frame_path: tuple[str, ...] = ()
    shadow_path: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _not_a_ref(self) -> ElementFingerprint:
        if any(_SNAPSHOT_REF.match(text) for text in (self.name, self.label, self.container)):
            raise ValueError("a fingerprint must describe the element, not carry a snapshot ref such as 'e12'")
        return self


class CachedAction(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    action_type: ActionType
    target: ElementFingerprint | None = None
    value: str | None = Field(default=None, description="A placeholder such as {{start_date}} or {{secret:pwd}}.")
    key: str | None = Field(default=None, max_length=40, description="For press: a key name such as Enter.")

    @model_validator(mode="after")
    def _placeholders_only(self) -> CachedAction:
        if self.value is not None and not _PLACEHOLDER.match(self.value):
            raise ValueError(
                f"{self.action_type} value must be a placeholder like {{{{start_date}}}}, never a literal value"
            )
        if self.value is not None and self.action_type not in _VALUE_ACTIONS:
            raise ValueError(f"{self.action_type} takes no value (extracted data is never cached)")
        if self.key is not None and (self.action_type != "press" or not _KEY_NAME.match(self.key)):
            raise ValueError("key is only for press and must be a key name such as Enter or Control+A")
        return self


class CachedDecision(BaseModel):
    """The actions an LLM decided for one page and goal, as they are stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    actions: tuple[CachedAction, ...] = Field(min_length=1, max_length=50)
    prompt_id: str = ""
    prompt_version: int = 0
    model: str = ""
    created_at: datetime = Field(default_factory=utcnow)


@dataclass(frozen=True)
class CacheLookup:
    """The result of :meth:`ActionCache.get`: a candidate decision to verify, or a miss with its reason."""

    key: str
    decision: CachedDecision | None
    miss_reason: str | None = None

    @property
    def found(self) -> bool:
        return self.decision is not None


def normalise_goal(goal: str) -> str:
    """Unicode NFKC, lower case, single spaces, no trailing punctuation: equal goals hash equally."""
    text = " ".join(unicodedata.normalize("NFKC", goal).lower().split())
    return text.rstrip(".!?。！？ ")


def goal_hash(goal: str) -> str:
    # MD5 is the spec's choice here: a cache key, not a security boundary.
    return hashlib.md5(normalise_goal(goal).encode(), usedforsecurity=False).hexdigest()


def action_cache_key(org_id: str, dom_hash: str, goal: str) -> str:
    """``action_cache:{org_id}:{dom_hash}:{goal_hash}``; refuses ids that could reach another org's keys."""
    _check_org(org_id)
    if not _DOM_HASH.match(dom_hash):
        raise ValueError("dom_hash must be the 64 hex digits of a SHA-256 of the cleaned DOM.")
    return f"{KEY_PREFIX}:{org_id}:{dom_hash}:{goal_hash(goal)}"


class ActionCache:
    """Verified LLM decisions per organisation in the KeyValueStore."""

    def __init__(
        self,
        store: KeyValueStore,
        *,
        ttl_s: float = 24 * 3600,
        detector: DetectorSettings | None = None,
        on_alert: AlertSink | None = None,
    ) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._health = CacheHealth(store, detector or DetectorSettings())
        self._on_alert = on_alert

    @classmethod
    def from_settings(cls, settings: Settings, store: KeyValueStore, on_alert: AlertSink | None = None) -> ActionCache:
        detector = DetectorSettings.from_settings(settings)
        return cls(store, ttl_s=settings.action_cache_ttl_s, detector=detector, on_alert=on_alert)

    async def get(self, org_id: str, dom_hash: str, goal: str) -> CacheLookup:
        """The stored decision for this page and goal, to be verified on the live page before use."""
        key = action_cache_key(org_id, dom_hash, goal)
        try:
            raw = await self._store.get(key)
        except CacheUnavailableError as exc:
            logger.warning("Action cache lookup skipped: %s", exc.message)
            return await self._miss(org_id, key, "store_unavailable")
        if raw is None:
            return await self._miss(org_id, key, "not_found")
        try:
            return CacheLookup(key, CachedDecision.model_validate_json(raw))
        except ValidationError:
            await self._store.delete(key)
            return await self._miss(org_id, key, "corrupt_entry")

    async def put(
        self,
        org_id: str,
        dom_hash: str,
        goal: str,
        decision: CachedDecision | Mapping[str, Any],
        *,
        known_secret_values: Collection[str] = (),
    ) -> str:
        """Store a decision that was verified on the live page; ActionCacheRejected says what is not allowed."""
        key = action_cache_key(org_id, dom_hash, goal)
        checked = _checked(decision)
        payload = checked.model_dump_json()
        if contains_secret(payload, known_secret_values):
            raise ActionCacheRejected(
                "The decision holds a secret value; cache it with a placeholder such as {{secret:password}}."
            )
        await self._store.set(key, payload, ttl_s=self._ttl_s)
        return key

    async def record_verification(self, org_id: str, key: str, ok: bool, reason: str = "") -> None:
        """After a :meth:`get` hit was re-resolved on the live page: count the hit, or evict and count a miss."""
        self._check_owner(org_id, key)
        if ok:
            await self._emit(await self._health.count_hit(org_id))
            return
        await self._store.delete(key)
        await self._emit(await self._health.count_miss(org_id, reason or "verification_failed"))

    async def stats(self, org_id: str) -> CacheStats:
        _check_org(org_id)
        return await self._health.stats(org_id)

    async def check_hit_rate(self, org_id: str) -> HitRateDropAlert | None:
        _check_org(org_id)
        return await self._health.check(org_id)

    async def clear(self, org_id: str) -> int:
        """Remove every cached decision of ``org_id`` (its counters stay); the number removed."""
        _check_org(org_id)
        return await self._store.delete_prefix(f"{KEY_PREFIX}:{org_id}:")

    async def _miss(self, org_id: str, key: str, reason: str) -> CacheLookup:
        try:
            await self._emit(await self._health.count_miss(org_id, reason))
        except CacheUnavailableError:
            pass  # the store is down: there is nowhere to count, and the miss itself is the degradation
        return CacheLookup(key, None, reason)

    async def _emit(self, alert: HitRateDropAlert | None) -> None:
        if alert is None:
            return
        logger.warning(alert.message)
        if self._on_alert is not None:
            await self._on_alert(alert)

    @staticmethod
    def _check_owner(org_id: str, key: str) -> None:
        _check_org(org_id)
        if not key.startswith(f"{KEY_PREFIX}:{org_id}:"):
            raise NotFoundError(f"No action-cache entry {key!r} belongs to organisation {org_id}.")


def _checked(decision: CachedDecision | Mapping[str, Any]) -> CachedDecision:
    try:
        source = decision.model_dump() if isinstance(decision, CachedDecision) else decision
        return CachedDecision.model_validate(source)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'decision'}: {error['msg']}" for error in exc.errors()
        )
        raise ActionCacheRejected(
            f"The decision cannot be cached ({problems}). Cache element fingerprints, action types and "
            "value placeholders only."
        ) from exc


def _check_org(org_id: str) -> None:
    if not _ORG_ID.match(org_id):
        raise ValueError("org_id must be 1-64 letters, digits, '-' or '_'.")
