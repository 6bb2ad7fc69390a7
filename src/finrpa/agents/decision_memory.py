"""How one free-form subtask uses the action cache: look up once per page visit, keep what the LLM decided.

A *page visit* lasts from a main-frame navigation to the next (a native dialog belongs to the page that
opened it). On the first observation of a visit the cache is asked for this page and goal; a hit is
replayed by the executor, every action re-resolved and verified on the live page. When the LLM decides on a
visit instead, its verified actions are collected and stored — as fingerprints, action kinds and value
placeholders — when the visit ends (the page navigated away) or the subtask completes. A visit that mixed a
partly replayed entry with new decisions, or whose action failed after it may have acted, stores nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, field

from finrpa.browser import PageSnapshot
from finrpa.cache import CacheUnavailableError
from finrpa.llm import ActionCache, ActionCacheRejected, CachedAction, CachedDecision, CacheLookup, PromptTemplate

logger = logging.getLogger(__name__)
MAX_CACHED_ACTIONS = 50
_DIALOG_NAVIGATION = "dialog"  # what a snapshot taken while a native dialog is open reports


@dataclass
class _Visit:
    tab_id: str
    navigation_id: str
    key: str | None = None
    looked_up: bool = False
    cacheable: bool = True
    model: str = ""
    actions: list[CachedAction] = field(default_factory=list)


class DecisionMemory:
    """The action cache as one subtask sees it (one organisation, one goal)."""

    def __init__(self, cache: ActionCache | None, org_id: str, goal: str, prompt: PromptTemplate) -> None:
        self.cache = cache
        self.org_id = org_id
        self.goal = goal
        self.prompt = prompt
        self.stored = 0
        self._visit: _Visit | None = None

    async def enter(self, snapshot: PageSnapshot, known_secret_values: Collection[str]) -> bool:
        """Note the page the loop observes; True when a new visit starts (the last one is stored first)."""
        if snapshot.navigation_id == _DIALOG_NAVIGATION:
            return False
        visit = self._visit
        if visit is not None and (visit.tab_id, visit.navigation_id) == (snapshot.tab_id, snapshot.navigation_id):
            return False
        await self.flush(known_secret_values)
        self._visit = _Visit(snapshot.tab_id, snapshot.navigation_id)
        return True

    @property
    def should_look_up(self) -> bool:
        return self.cache is not None and self._visit is not None and not self._visit.looked_up

    async def look_up(self, page_hash: str | None) -> CacheLookup | None:
        """The cache's answer for this visit's page (asked once per visit); None when there is no cache."""
        visit = self._visit
        if visit is None or self.cache is None:
            return None
        visit.looked_up = True
        visit.key = page_hash
        if page_hash is None:
            visit.cacheable = False  # the page could not be read: nothing to key a decision by
            return None
        return await self.cache.get(self.org_id, page_hash, self.goal)

    def replayed(self, *, acted: bool) -> None:
        """A cache entry was replayed on this visit (fully, or failing after ``acted`` actions)."""
        if self._visit is not None and acted:
            self._visit.cacheable = False

    def record(self, action: CachedAction | None, model: str) -> None:
        """A verified LLM decision on this visit; None (not cacheable) spoils the visit's sequence."""
        visit = self._visit
        if visit is None:
            return
        if action is None or len(visit.actions) >= MAX_CACHED_ACTIONS:
            visit.cacheable = False
            return
        visit.actions.append(action)
        visit.model = model

    def spoil(self) -> None:
        """An action on this visit failed after it may have acted: the sequence is not a known good one."""
        if self._visit is not None:
            self._visit.cacheable = False

    async def flush(self, known_secret_values: Collection[str]) -> None:
        """Store the visit's decided actions, if they may be stored; never fails the subtask."""
        visit = self._visit
        if visit is None or self.cache is None:
            return
        actions, visit.actions = visit.actions, []
        if not (visit.cacheable and visit.key and actions):
            return
        decision = CachedDecision(
            actions=tuple(actions), prompt_id=self.prompt.id, prompt_version=self.prompt.version, model=visit.model
        )
        try:
            await self.cache.put(self.org_id, visit.key, self.goal, decision, known_secret_values=known_secret_values)
        except ActionCacheRejected as exc:
            logger.warning("A decision was not cached: %s", exc.message)
            return
        except CacheUnavailableError as exc:
            logger.warning("A decision was not cached, the store is unavailable: %s", exc.message)
            return
        self.stored += 1
