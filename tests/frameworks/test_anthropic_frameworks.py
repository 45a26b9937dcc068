"""Frameworks on Anthropic's Messages API, against the server: langchain-anthropic (a reply, a
tool loop, structured output), pydantic-ai's Anthropic model (a tool and an output type), and
litellm's ``anthropic/…`` models (a reply, a stream, a tool call)."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

MODEL = "claude-haiku-4-5"


class Forecast(BaseModel):
    city: str
    temperature_c: float
    summary: str


# -- langchain-anthropic -------------------------------------------------------------------


@pytest.fixture
def chat(server: BackgroundServer, api_key: str) -> Any:
    langchain_anthropic = pytest.importorskip("langchain_anthropic")
    return langchain_anthropic.ChatAnthropic(
        model_name=MODEL,
        base_url=server.url,
        api_key=api_key,
        max_tokens=200,
        max_retries=0,
        timeout=10,
        stop=None,
    )


def test_langchain_gets_a_reply_whole_and_streamed(chat: Any, calls: Any) -> None:
    reply = chat.invoke("Say something kind.")
    assert isinstance(reply.content, str)
    assert reply.content
    assert reply.usage_metadata["input_tokens"] > 0
    streamed = "".join(str(chunk.content) for chunk in chat.stream("Say something kind."))
    assert streamed == reply.content
    assert [(c["api"], c["stream"]) for c in calls()] == [("messages", False), ("messages", True)]


def test_langchain_runs_a_tool_loop(chat: Any, calls: Any) -> None:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return f"21 °C in {city}"

    bound = chat.bind_tools([get_weather], tool_choice="any")
    messages: list[Any] = [HumanMessage("What is the weather in Oslo?")]
    first = bound.invoke(messages)
    (call,) = first.tool_calls
    assert call["name"] == "get_weather"
    assert isinstance(call["args"]["city"], str)
    messages += [first, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    final = chat.bind_tools([get_weather]).invoke(messages)
    assert final.tool_calls == []
    assert final.content
    journal = calls()
    assert [c["api"] for c in journal] == ["messages", "messages"]
    sent = journal[1]["request"]["messages"]
    assert sent[-1]["content"][0]["type"] == "tool_result"


def test_langchain_structured_output_validates(chat: Any) -> None:
    forecast = chat.with_structured_output(Forecast).invoke("The forecast for Rome, please.")
    assert isinstance(forecast, Forecast)


# -- pydantic-ai ---------------------------------------------------------------------------


@pytest.fixture
async def anthropic_model(server: BackgroundServer, api_key: str) -> AsyncIterator[Any]:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    async with anthropic.AsyncAnthropic(
        base_url=server.url, api_key=api_key, max_retries=0
    ) as client:
        yield AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=client))


@pytest.mark.anyio
async def test_pydantic_ai_calls_its_tool_then_returns_its_output_type(
    anthropic_model: Any, calls: Any
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.usage import UsageLimits

    agent = Agent(anthropic_model, output_type=Forecast, instructions="Answer with the forecast.")
    cities: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        cities.append(city)
        return f"21 °C and sunny in {city}"

    result = await agent.run(
        "What's the weather in Paris?", usage_limits=UsageLimits(request_limit=4)
    )
    assert isinstance(result.output, Forecast)
    assert len(cities) == 1
    journal = calls()
    assert len(journal) == 2  # the tool call, then the output tool
    assert {c["api"] for c in journal} == {"messages"}
    assert journal[0]["request"]["tool_choice"]["type"] == "any"


# -- litellm -------------------------------------------------------------------------------

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


@pytest.fixture
def litellm() -> Iterator[Any]:
    with warnings.catch_warnings():  # litellm's own TypedDicts, as pydantic builds them
        warnings.filterwarnings("ignore", ".*`ReadOnly` qualifier", UserWarning)
        module = pytest.importorskip("litellm")  # after the conftest set its offline env
    module.telemetry = False
    yield module
    # litellm's sync calls make the thread an event loop and never close it (see
    # test_litellm.py): closed here, or its ResourceWarning surfaces later as an error.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)


def _options(server: BackgroundServer, api_key: str) -> dict[str, Any]:
    return {"model": f"anthropic/{MODEL}", "api_base": server.url, "api_key": api_key}


#: litellm's own TypedDicts, as pydantic builds their schemas on its import.
_quiet_litellm = pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")


@_quiet_litellm
def test_litellm_gets_a_reply_and_a_stream(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    ask = [{"role": "user", "content": "Say something kind."}]
    whole = litellm.completion(messages=ask, max_tokens=100, **_options(server, api_key))
    text = whole.choices[0].message.content
    assert text
    assert whole.usage.prompt_tokens > 0
    chunks = litellm.completion(
        messages=ask, max_tokens=100, stream=True, **_options(server, api_key)
    )
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text
    assert [(c["api"], c["stream"]) for c in calls()] == [("messages", False), ("messages", True)]


@_quiet_litellm
def test_litellm_reads_a_tool_call(
    litellm: Any, server: BackgroundServer, api_key: str, calls: Any
) -> None:
    reply = litellm.completion(
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=TOOLS,
        tool_choice="required",
        max_tokens=100,
        **_options(server, api_key),
    )
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name == "get_weather"
    assert "city" in json.loads(call.function.arguments)
    assert call.id.startswith("toolu_")
    (entry,) = calls()
    assert entry["request"]["tool_choice"] == {"type": "any"}
