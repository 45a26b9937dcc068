"""Every built-in scenario does what its description says, through the official SDK."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer
from mockserver.scenario.library import builtin, builtin_names

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
        },
    },
}


@pytest.fixture
def sdk(server: BackgroundServer, api_key: str) -> Iterator[Any]:
    clients: list[openai.OpenAI] = []

    def make(scenario: str, **kw: Any) -> openai.OpenAI:
        client = openai.OpenAI(
            base_url=server.base_url,
            api_key=api_key,
            default_headers={"x-mockserver-scenario": scenario},
            **{"max_retries": 0, **kw},
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def test_every_library_scenario_has_a_description() -> None:
    assert len(builtin_names()) >= 13
    for name in builtin_names():
        assert builtin(name).description.strip(), name


def test_plain_chat(sdk: Any) -> None:
    client = sdk("plain-chat")
    ask = client.chat.completions.create
    assert ask(model="m", messages=user("hello there")).choices[0].message.content == (
        "Hello! How can I help you today?"
    )
    assert ask(model="m", messages=user("echo: ping")).choices[0].message.content == (
        "You said: echo: ping"
    )
    assert len(ask(model="m", messages=user("Tell me a story")).choices[0].message.content) > 20


def test_weather_agent_loop(sdk: Any) -> None:
    client = sdk("weather-agent")
    messages = user("What's the weather like?")
    first = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER])
    call = first.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"city": "Boston", "unit": "celsius"}
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "18 °C"},
    ]
    final = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER])
    assert final.choices[0].message.content.startswith("It is currently 18 °C in Boston.")


def test_parallel_tools(sdk: Any) -> None:
    client = sdk("parallel-tools")
    messages = user("Plan my trip to Lisbon")
    first = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER, TIME])
    calls = first.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["get_weather", "get_time"]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": calls[0].id, "content": "sunny"})
    partial = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER, TIME])
    assert "forecast and local time" not in (partial.choices[0].message.content or "")
    messages.append({"role": "tool", "tool_call_id": calls[1].id, "content": "14:00"})
    final = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER, TIME])
    assert "forecast and local time" in final.choices[0].message.content


class Recipe(BaseModel):
    title: str
    minutes: int
    ingredients: list[str]


class Movie(BaseModel):
    name: str
    year: int


def test_structured_output(sdk: Any) -> None:
    client = sdk("structured-output")
    recipe = client.chat.completions.parse(
        model="m", messages=user("dinner?"), response_format=Recipe
    )
    assert recipe.choices[0].message.parsed.title == "Weeknight tomato pasta"
    movie = client.chat.completions.parse(model="m", messages=user("film?"), response_format=Movie)
    assert isinstance(movie.choices[0].message.parsed, Movie)


def test_logprobs(sdk: Any) -> None:
    reply = sdk("logprobs").chat.completions.create(
        model="m", messages=user("right?"), logprobs=True, top_logprobs=2
    )
    entries = reply.choices[0].logprobs.content
    assert "".join(e.token for e in entries) == "Yes, that is correct."
    assert all(len(e.top_logprobs) == 2 for e in entries)


def test_refusal(sdk: Any) -> None:
    message = (
        sdk("refusal")
        .chat.completions.create(model="m", messages=user("how do I build malware"))
        .choices[0]
        .message
    )
    assert message.content is None
    assert message.refusal == "I'm sorry, but I can't help with that."


def test_reasoning_tokens_in_usage(sdk: Any) -> None:
    reply = sdk("reasoning").chat.completions.create(model="m", messages=user("6 x 7?"))
    assert reply.choices[0].message.content == "The answer is 42."
    assert reply.usage.completion_tokens_details.reasoning_tokens == 256


def test_rate_limited_then_recovering_honours_retry_after(sdk: Any) -> None:
    client = sdk("rate-limited", max_retries=2)
    started = time.monotonic()
    reply = client.chat.completions.create(model="m", messages=user("hi"))
    assert reply.choices[0].message.content == "Recovered after two rate-limited attempts."
    assert time.monotonic() - started >= 2.0  # two waits of Retry-After: 1


def test_overloaded(sdk: Any) -> None:
    with pytest.raises(openai.InternalServerError) as info:
        sdk("overloaded").chat.completions.create(model="m", messages=user("hi"))
    assert info.value.status_code == 503
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.body["code"] == "server_is_overloaded"


def test_stream_cut(sdk: Any) -> None:
    client = sdk("stream-cut")
    assert client.chat.completions.create(model="m", messages=user("hi")).choices[0]
    with pytest.raises((openai.APIConnectionError, httpx.RemoteProtocolError)):
        list(client.chat.completions.create(model="m", messages=user("hi"), stream=True))


def test_moderation_block(sdk: Any) -> None:
    client = sdk("moderation-block")
    reply = client.chat.completions.create(
        model="m",
        messages=user("how do I attack him"),
        extra_body={
            "moderation": {
                "model": "omni-moderation-latest",
                "policy": {"input": {"mode": "block"}},
            }
        },
    )
    assert reply.choices[0].finish_reason == "content_filter"
    flags = client.moderations.create(input="I will attack").results[0]
    assert flags.categories.violence is True


def test_slow_stream_waits_for_the_first_token(sdk: Any) -> None:
    client = sdk("slow-stream")
    started = time.monotonic()
    stream = client.chat.completions.create(model="m", messages=user("hi"), stream=True)
    first = next(iter(stream))
    assert time.monotonic() - started >= 0.4  # ttft 0.6 s minus the seeded jitter bound
    assert first.choices[0].delta.role == "assistant"
    stream.close()
