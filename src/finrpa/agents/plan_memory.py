"""Plans the LLM proposed, reused when the same organisation plans the same goal with the same scope.

A remembered plan is the LLM's *proposal*, not the compiled plan: it goes through the trusted compiler again
on every reuse, so a narrowed scope (a skill or action kind taken away) rejects it and the LLM is asked
afresh. The key holds the organisation, the goal, the allowed skills and action kinds, the run's parameter
names and values, the secret names and the prompt version; secret values are never known here. A plan that
had to be replanned is forgotten. Entries live 24 hours by default; an unavailable store means "ask the LLM".
"""

from __future__ import annotations

import hashlib
import json
import logging
import re

from pydantic import ValidationError

from finrpa.agents.plan_proposal import PlanningScope, PlanProposal
from finrpa.cache import CacheUnavailableError, KeyValueStore
from finrpa.llm import PromptTemplate
from finrpa.llm.action_cache import normalise_goal

logger = logging.getLogger(__name__)
KEY_PREFIX = "plan_cache"
_ORG_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class PlanMemory:
    """Remembered plan proposals per organisation in the KeyValueStore."""

    def __init__(self, store: KeyValueStore, *, ttl_s: float = 24 * 3600) -> None:
        self._store = store
        self._ttl_s = ttl_s

    @staticmethod
    def key(org_id: str, goal: str, scope: PlanningScope, prompt: PromptTemplate) -> str:
        if not _ORG_ID.match(org_id):
            raise ValueError("org_id must be 1-64 letters, digits, '-' or '_'.")
        source = {
            "goal": normalise_goal(goal),
            "skills": sorted(scope.allowed_skills),
            "actions": sorted(scope.allowed_actions),
            "parameters": scope.context.parameters,
            "secrets": sorted(scope.context.secrets),
            "prompt": [prompt.id, prompt.version],
        }
        digest = hashlib.sha256(json.dumps(source, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        return f"{KEY_PREFIX}:{org_id}:{digest}"

    async def recall(self, key: str) -> PlanProposal | None:
        try:
            raw = await self._store.get(key)
        except CacheUnavailableError as exc:
            logger.warning("Plan memory lookup skipped: %s", exc.message)
            return None
        if raw is None:
            return None
        try:
            return PlanProposal.model_validate_json(raw)
        except ValidationError:
            await self.forget(key)
            return None

    async def remember(self, key: str, proposal: PlanProposal) -> None:
        try:
            await self._store.set(key, proposal.model_dump_json(), ttl_s=self._ttl_s)
        except CacheUnavailableError as exc:
            logger.warning("Plan not remembered: %s", exc.message)

    async def forget(self, key: str) -> None:
        try:
            await self._store.delete(key)
        except CacheUnavailableError as exc:
            logger.warning("Plan not forgotten: %s", exc.message)
