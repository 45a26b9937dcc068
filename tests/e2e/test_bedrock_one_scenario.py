"""One scenario answers OpenAI's Chat Completions and Bedrock's Converse alike: the same
scripted text, the same tool call, and the same 429 in each family's words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from botocore.exceptions import ClientError

from mockserver.http.server import BackgroundServer
from tests.support.bedrock import access_key_for, bedrock_client
from tests.support.scenarios import use_scenario

SCENARIO = """
rules:
  - id: weather
    when: {last_user: {contains: weather}, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited}}
  - id: hello
    reply: {text: Hello from one scenario.}
"""
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def key(request: pytest.FixtureRequest) -> str:
    return access_key_for(request.node.nodeid)


@pytest.fixture
def clients(server: BackgroundServer, key: str) -> Iterator[tuple[openai.OpenAI, Any]]:
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {key}"}
    ) as control:
        use_scenario(control, SCENARIO)
    bedrock = bedrock_client(server.url, key)
    with openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0) as chat:
        yield chat, bedrock
    bedrock.close()


def _ask(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": text}]}]


def test_the_same_text(clients: tuple[openai.OpenAI, Any]) -> None:
    chat, bedrock = clients
    said = chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    answer = bedrock.converse(modelId="anthropic.claude-v2", messages=_ask("hi"))
    assert said.choices[0].message.content == "Hello from one scenario."
    assert answer["output"]["message"]["content"] == [{"text": "Hello from one scenario."}]


def test_the_same_tool_call(clients: tuple[openai.OpenAI, Any]) -> None:
    chat, bedrock = clients
    called = chat.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "weather?"}],
        tools=[{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}],
    )
    tools = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": SCHEMA}}}]}
    answer = bedrock.converse(modelId="m", messages=_ask("weather?"), toolConfig=tools)
    (call,) = called.choices[0].message.tool_calls or []
    assert call.function.name == "get_weather"  # type: ignore[union-attr]
    assert call.function.arguments == '{"city":"Oslo"}'  # type: ignore[union-attr]
    (block,) = answer["output"]["message"]["content"]
    assert block["toolUse"]["name"] == "get_weather"
    assert block["toolUse"]["input"] == {"city": "Oslo"}


def test_the_same_429(clients: tuple[openai.OpenAI, Any]) -> None:
    chat, bedrock = clients
    with pytest.raises(openai.RateLimitError):
        chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "busy"}])
    with pytest.raises(ClientError) as raised:
        bedrock.converse(modelId="m", messages=_ask("busy"))
    assert raised.value.response["Error"]["Code"] == "ThrottlingException"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
