"""The scripted LLM server other tests build on: handler mode, request recording and both APIs' shapes."""

from __future__ import annotations

import anthropic
import openai
import pytest
from pydantic import BaseModel

from finrpa.llm import CallContext, LLMClient, LogUsageRecorder, PromptTemplate, Tier
from tests.fixtures.llm_server import RecordedRequest, Reply, ScriptedLLMServer, scripted_llm_settings

PROMPT = PromptTemplate(id="test.risk", version=1, system="Assess the risk.", user="{{ page }}")


class Risk(BaseModel):
    level: str


def _by_content(request: RecordedRequest) -> object:
    if "付款" in request.last_user_text:
        return {"level": "high"}
    if "查询" in request.last_user_text:
        return Reply.fenced({"level": "low"})
    return None


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_handler_mode_answers_by_request_content(llm_server: ScriptedLLMServer, provider: str) -> None:
    llm_server.set_handler(_by_content)
    client = LLMClient.from_settings(scripted_llm_settings(llm_server, provider=provider), LogUsageRecorder())  # type: ignore[arg-type]
    context = CallContext("org-a")
    high = await client.call_structured(PROMPT, Risk, tier=Tier.LIGHT, context=context, variables={"page": "对公付款"})
    low = await client.call_structured(PROMPT, Risk, tier=Tier.LIGHT, context=context, variables={"page": "查询"})
    nothing = await client.call_structured(PROMPT, Risk, tier=Tier.LIGHT, context=context, variables={"page": "?"})
    await client.aclose()

    assert (high.data, low.data) == (Risk(level="high"), Risk(level="low"))
    assert nothing.needs_human and "no reply was queued" in nothing.errors[0]
    assert {request.api for request in llm_server.requests} == {provider}


async def test_queued_replies_come_before_the_handler(llm_server: ScriptedLLMServer) -> None:
    async def handler(request: RecordedRequest) -> str:
        return '{"level": "from-handler"}'

    llm_server.set_handler(handler)
    llm_server.enqueue(Reply.json({"level": "queued"}))
    client = openai.AsyncOpenAI(base_url=llm_server.openai_base_url, api_key="k", max_retries=0)
    first = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
    second = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
    await client.close()
    assert first.choices[0].message.content == '{"level": "queued"}'
    assert second.choices[0].message.content == '{"level": "from-handler"}'
    assert [request.last_user_text for request in llm_server.requests] == ["a", "b"]


async def test_sdk_shapes_and_recorded_requests(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(Reply.text("hello", input_tokens=7, output_tokens=2), Reply.rate_limited(3))
    client = anthropic.AsyncAnthropic(base_url=llm_server.anthropic_base_url, api_key="k", max_retries=0)
    message = await client.messages.create(
        model="claude-x", max_tokens=10, system="sys", messages=[{"role": "user", "content": "hi"}]
    )
    with pytest.raises(anthropic.RateLimitError) as limited:
        await client.messages.create(model="claude-x", max_tokens=10, messages=[{"role": "user", "content": "again"}])
    await client.close()

    assert message.content[0].text == "hello"  # type: ignore[union-attr]
    assert (message.usage.input_tokens, message.usage.output_tokens) == (7, 2)
    assert limited.value.response.headers["retry-after"] == "3"
    first = llm_server.requests[0]
    assert (first.api, first.path, first.model, first.system, first.messages) == (
        "anthropic", "/v1/messages", "claude-x", "sys", [("user", "hi")]
    )  # fmt: skip
    sent_key = first.headers.get("x-api-key") or first.headers.get("authorization", "").removeprefix("Bearer ")
    assert sent_key == "k"
