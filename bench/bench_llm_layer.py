"""Benchmark: the LLM layer's own cost next to the calls it wraps.

* structured call (render, schema instruction, redaction, SDK call, cleaning, validation, usage record) vs a
  bare SDK call to the same local scripted server, for both providers — the ratio is the layer's overhead;
* one invalid reply then a good one (a retry round trip, zero backoff);
* ``clean_llm_response`` on a prose-wrapped 4 KB reply;
* an action-cache lookup + verification record (in-process, and Redis when FINRPA_TEST_REDIS_URL or
  FINRPA_REDIS_URL is set) vs a structured call — what a cache hit saves.

Run: .venv/bin/python bench/bench_llm_layer.py
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anthropic
import openai
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted server lives in tests/fixtures

from tests.fixtures.llm_server import Reply, ScriptedLLMServer, scripted_llm_settings

from finrpa.cache import InProcessKeyValueStore, KeyValueStore, RedisKeyValueStore
from finrpa.llm import (
    ActionCache,
    CallContext,
    LLMCallRecord,
    LLMClient,
    PromptTemplate,
    Tier,
    Untrusted,
    clean_llm_response,
)

ROUNDS = 60
PROMPT = PromptTemplate(id="bench.next_action", version=1, system="Choose the next action.", user="{{ page }}")
PAGE = Untrusted("<form><label>开始日期</label><input name=start><button>查询</button></form>" * 20)
ANSWER = {"action": "click", "target": "查询"}


class NextAction(BaseModel):
    action: str
    target: str


class NullRecorder:
    async def record(self, record: LLMCallRecord) -> None:
        return None


async def _median_ms(rounds: int, operation: Callable[[], Awaitable[object]]) -> float:
    await operation()  # warm-up: connection pool, imports, caches
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await operation()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def _bare_sdk_call(server: ScriptedLLMServer, provider: str) -> Callable[[], Awaitable[object]]:
    if provider == "openai":
        oa = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="bench", max_retries=0)
        return lambda: oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    an = anthropic.AsyncAnthropic(base_url=server.anthropic_base_url, api_key="bench", max_retries=0)
    return lambda: an.messages.create(model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}])


async def _bench_provider(server: ScriptedLLMServer, provider: str) -> float:
    server.reset()
    server.set_handler(lambda _request: Reply.json(ANSWER))
    client = LLMClient.from_settings(scripted_llm_settings(server, provider=provider), NullRecorder())  # type: ignore[arg-type]
    context = CallContext("org-bench")

    async def structured() -> object:
        result = await client.call_structured(
            PROMPT, NextAction, tier=Tier.STANDARD, context=context, variables={"page": PAGE}
        )
        assert result.success
        return result

    bare = await _median_ms(ROUNDS, await _bare_sdk_call(server, provider))
    layer = await _median_ms(ROUNDS, structured)
    print(f"{provider:9} bare SDK call        median {bare:7.2f} ms")
    print(f"{provider:9} structured call      median {layer:7.2f} ms   ratio {layer / bare:4.2f}x bare")

    replies = iter(())

    def flaky(_request: object) -> Reply:
        return next(replies, Reply.json(ANSWER))

    server.set_handler(flaky)

    async def with_retry() -> object:
        nonlocal replies
        replies = iter([Reply.invalid_json()])
        result = await structured()
        return result

    retried = await _median_ms(ROUNDS // 2, with_retry)
    print(f"{provider:9} invalid→retry→valid  median {retried:7.2f} ms   ratio {retried / layer:4.2f}x one call")
    await client.aclose()
    return layer


def _bench_cleaning() -> None:
    body = json.dumps({"action": "fill", "target": "开始日期", "notes": ["x" * 60] * 50}, ensure_ascii=False)
    raw = f"Sure, here is my answer {{with braces}}:\n```json\n{body}\n```\nHope that helps."
    started = time.perf_counter()
    for _ in range(2000):
        clean_llm_response(raw)
    per_call_us = (time.perf_counter() - started) / 2000 * 1e6
    print(f"clean_llm_response on {len(raw)} chars   {per_call_us:7.1f} µs per reply")


async def _bench_cache(name: str, store: KeyValueStore, llm_call_ms: float) -> None:
    cache = ActionCache(store)
    dom = hashlib.sha256(b"bench page").hexdigest()
    decision = {"actions": [{"action_type": "click", "target": {"role": "button", "name": "查询"}}]}
    await cache.put("org-bench", dom, "query the statement", decision)

    async def hit() -> object:
        lookup = await cache.get("org-bench", dom, "query the statement")
        await cache.record_verification("org-bench", lookup.key, ok=True)
        return lookup

    cached = await _median_ms(ROUNDS * 5, hit)
    print(
        f"action cache ({name:9}) get+verify median {cached:7.3f} ms   "
        f"{llm_call_ms / cached:6.0f}x faster than a local structured call"
    )
    await cache.clear("org-bench")
    await store.close()


async def main() -> None:
    with ScriptedLLMServer() as server:
        layer_ms = [await _bench_provider(server, provider) for provider in ("openai", "anthropic")]
    _bench_cleaning()
    await _bench_cache("in-process", InProcessKeyValueStore(), min(layer_ms))
    redis_url = os.environ.get("FINRPA_TEST_REDIS_URL") or os.environ.get("FINRPA_REDIS_URL")
    if redis_url:
        await _bench_cache("redis", RedisKeyValueStore(redis_url, namespace="finrpa-bench:"), min(layer_ms))
    else:
        print("action cache (redis): skipped, set FINRPA_TEST_REDIS_URL to include it")
    print("(a real provider answers in 0.5–10 s, so each verified cache hit saves that time and its tokens)")


if __name__ == "__main__":
    asyncio.run(main())
