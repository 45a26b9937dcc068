"""One scenario file answers an OpenAI client and an ``ollama`` client alike: the same scripted
text, the same tool call (and the end of its loop), and the same 429, each in its family's
shape."""

from __future__ import annotations

import json

import httpx
import ollama
import openai
import pytest

from tests.support.scenarios import use_scenario

SCENARIO = """
name: openai-and-ollama
rules:
  - id: greet
    when: {last_user: {contains: hello}}
    reply: {text: "Hello from the scenario."}
  - id: weather
    when: {last_user: {contains: weather}, last_role: user, tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Boston}}]}
  - id: answer
    when: {tool_result: {name: get_weather}}
    reply: {text: "It is 21 °C in Boston."}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: rate_limited, retry_after: 2}}
"""
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": PARAMETERS}}]


@pytest.fixture(autouse=True)
def _scenario(control: httpx.Client) -> None:
    use_scenario(control, SCENARIO)


def say(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_the_same_text(client: openai.OpenAI, llama: ollama.Client) -> None:
    chat = client.chat.completions.create(model="gpt-4o-mini", messages=say("hello"))
    local = llama.chat(model="llama3.2", messages=say("hello"))
    streamed = llama.chat(model="llama3.2", messages=say("hello"), stream=True)
    generated = llama.generate(model="llama3.2", prompt="hello")
    assert chat.choices[0].message.content == "Hello from the scenario."
    assert local.message.content == "Hello from the scenario."
    assert "".join(part.message.content or "" for part in streamed) == "Hello from the scenario."
    assert generated.response == "Hello from the scenario."


def test_the_same_tool_call_and_the_same_end_of_the_loop(
    client: openai.OpenAI, llama: ollama.Client
) -> None:
    chat = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=say("weather?"),
        tools=TOOLS,  # type: ignore[arg-type]
    )
    (chat_call,) = chat.choices[0].message.tool_calls or []
    local = llama.chat(model="llama3.2", messages=say("weather?"), tools=TOOLS)
    (call,) = local.message.tool_calls or []
    assert chat_call.function.name == call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(chat_call.function.arguments) == call.function.arguments  # type: ignore[union-attr]
    assert call.function.arguments == {"city": "Boston"}
    after = llama.chat(
        model="llama3.2",
        tools=TOOLS,
        messages=[
            *say("weather?"),
            local.message,
            {"role": "tool", "content": "21", "tool_name": "get_weather"},
        ],
    )
    assert after.message.content == "It is 21 °C in Boston."


def test_the_same_429_in_each_shape(client: openai.OpenAI, llama: ollama.Client) -> None:
    with pytest.raises(openai.RateLimitError) as from_openai:
        client.chat.completions.create(model="gpt-4o-mini", messages=say("busy"))
    with pytest.raises(ollama.ResponseError) as from_ollama:
        llama.chat(model="llama3.2", messages=say("busy"))
    assert from_openai.value.response.headers["retry-after"] == "2"
    assert from_ollama.value.status_code == 429
    assert from_ollama.value.error == "rate limit exceeded"
