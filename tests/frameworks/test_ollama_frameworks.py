"""Frameworks that reach a model through Ollama's own API, aimed at the server: litellm's
``ollama/…`` (``/api/generate``) and ``ollama_chat/…`` (``/api/chat``), and langchain-ollama's
``ChatOllama``."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.scenarios import use_scenario

pytestmark = pytest.mark.filterwarnings(
    # litellm's own TypedDicts, as pydantic builds their schemas on its import
    "ignore:.*`ReadOnly` qualifier:UserWarning",
)

SCENARIO = """
rules:
  - when: {tools_offered: [get_weather], last_role: user}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
  - when: {tool_result: {name: get_weather}}
    reply: {text: "It is 3 degrees in Oslo."}
  - when: {last_user: {contains: hello}}
    reply: {text: "Hello from Ollama's side."}
"""
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


@pytest.fixture(autouse=True)
def _scenario(server: BackgroundServer, api_key: str) -> None:
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {api_key}"}
    ) as control:
        use_scenario(control, SCENARIO)


@pytest.fixture
def litellm() -> Iterator[Any]:
    module = pytest.importorskip("litellm")  # imported after the conftest set its offline env
    module.telemetry = False
    yield module
    # litellm's sync calls leave the thread an event loop it never closes (see test_litellm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)


def test_litellm_ollama_chat_runs_a_tool_loop(
    litellm: Any, server: BackgroundServer, api_key: str
) -> None:
    options = {"model": "ollama_chat/llama3.2", "api_base": server.url, "api_key": api_key}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = litellm.completion(messages=messages, tools=TOOLS, **options)
    (call,) = first.choices[0].message.tool_calls
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Oslo"}
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "name": "get_weather", "content": "3 °C"},
    ]
    second = litellm.completion(messages=messages, tools=TOOLS, **options)
    assert second.choices[0].message.content == "It is 3 degrees in Oslo."


def test_litellm_ollama_chat_streams(litellm: Any, server: BackgroundServer, api_key: str) -> None:
    chunks = litellm.completion(
        model="ollama_chat/llama3.2",
        api_base=server.url,
        api_key=api_key,
        messages=[{"role": "user", "content": "hello"}],
        stream=True,
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert text == "Hello from Ollama's side."


def test_litellm_ollama_generate(litellm: Any, server: BackgroundServer, api_key: str) -> None:
    reply = litellm.completion(
        model="ollama/llama3.2",
        api_base=server.url,
        api_key=api_key,
        messages=[{"role": "user", "content": "hello"}],
    )
    assert reply.choices[0].message.content == "Hello from Ollama's side."
    assert reply.usage.completion_tokens > 0


def test_langchain_chat_ollama(server: BackgroundServer, api_key: str) -> None:
    langchain_ollama = pytest.importorskip("langchain_ollama")
    model = langchain_ollama.ChatOllama(
        model="llama3.2",
        base_url=server.url,
        client_kwargs={"headers": {"Authorization": f"Bearer {api_key}"}},
    )
    try:
        assert model.invoke("hello").content == "Hello from Ollama's side."
        streamed = "".join(str(chunk.content) for chunk in model.stream("hello"))
        assert streamed == "Hello from Ollama's side."
        called = model.bind_tools(TOOLS).invoke("Weather in Oslo?")
        assert called.tool_calls[0]["name"] == "get_weather"
        assert called.tool_calls[0]["args"] == {"city": "Oslo"}
    finally:  # ChatOllama never closes the clients it makes
        model._client._client.close()
        asyncio.run(model._async_client._client.aclose())
