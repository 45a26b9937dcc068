"""One scenario file answers an OpenAI client and an Anthropic client alike: the same scripted
text, the same tool call, and the same 429 — each in its own family's shape."""

from __future__ import annotations

import json

import anthropic
import httpx
import openai
import pytest

from tests.support.scenarios import use_scenario

SCENARIO = """
name: two-families
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
  - id: claude-only
    when: {api: messages, last_user: {contains: which}}
    reply: {text: "You asked through the Messages API."}
  - id: openai-only
    when: {last_user: {contains: which}}
    reply: {text: "You asked through an OpenAI API."}
"""
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture(autouse=True)
def _scenario(control: httpx.Client) -> None:
    use_scenario(control, SCENARIO)


def say(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_the_same_text(client: openai.OpenAI, claude: anthropic.Anthropic) -> None:
    chat = client.chat.completions.create(model="gpt-4o-mini", messages=say("hello"))
    response = client.responses.create(model="gpt-4o-mini", input="hello")
    message = claude.messages.create(
        model="claude-haiku-4-5", max_tokens=100, messages=say("hello")
    )
    assert chat.choices[0].message.content == "Hello from the scenario."
    assert response.output_text == "Hello from the scenario."
    assert message.content[0].text == "Hello from the scenario."


def test_the_same_tool_call_and_the_same_end_of_the_loop(
    client: openai.OpenAI, claude: anthropic.Anthropic
) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": PARAMETERS}}]
    chat = client.chat.completions.create(
        model="gpt-4o-mini", messages=say("weather?"), tools=tools
    )
    (chat_call,) = chat.choices[0].message.tool_calls or []
    message = claude.messages.create(
        model="claude-haiku-4-5",
        max_tokens=100,
        messages=say("weather?"),
        tools=[{"name": "get_weather", "input_schema": PARAMETERS}],
    )
    (use,) = [block for block in message.content if block.type == "tool_use"]
    assert chat_call.function.name == use.name == "get_weather"
    assert json.loads(chat_call.function.arguments) == use.input == {"city": "Boston"}
    assert message.stop_reason == "tool_use"
    assert chat.choices[0].finish_reason == "tool_calls"
    after = claude.messages.create(
        model="claude-haiku-4-5",
        max_tokens=100,
        tools=[{"name": "get_weather", "input_schema": PARAMETERS}],
        messages=[
            *say("weather?"),
            {"role": "assistant", "content": message.content},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "21"}],
            },
        ],
    )
    assert after.content[0].text == "It is 21 °C in Boston."
    chat_after = client.chat.completions.create(
        model="gpt-4o-mini",
        tools=tools,
        messages=[
            *say("weather?"),
            chat.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": chat_call.id, "content": "21"},
        ],
    )
    assert chat_after.choices[0].message.content == after.content[0].text


def test_the_same_429_in_each_shape(client: openai.OpenAI, claude: anthropic.Anthropic) -> None:
    with pytest.raises(openai.RateLimitError) as from_openai:
        client.chat.completions.create(model="gpt-4o-mini", messages=say("busy"))
    with pytest.raises(anthropic.RateLimitError) as from_anthropic:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=10, messages=say("busy"))
    openai_body = from_openai.value.body
    assert isinstance(openai_body, dict)
    assert openai_body["code"] == "slow_down"
    assert from_openai.value.response.headers["retry-after"] == "2"
    assert from_openai.value.response.headers["x-request-id"].startswith("req_")
    anthropic_body = from_anthropic.value.body
    assert isinstance(anthropic_body, dict)
    assert anthropic_body["type"] == "error"
    assert anthropic_body["error"]["type"] == "rate_limit_error"
    assert from_anthropic.value.response.headers["retry-after"] == "2"
    assert from_anthropic.value.response.headers["request-id"] == anthropic_body["request_id"]


def test_api_messages_selects_anthropic_requests(
    client: openai.OpenAI, claude: anthropic.Anthropic
) -> None:
    chat = client.chat.completions.create(model="gpt-4o-mini", messages=say("which API?"))
    message = claude.messages.create(
        model="claude-haiku-4-5", max_tokens=50, messages=say("which API?")
    )
    assert chat.choices[0].message.content == "You asked through an OpenAI API."
    assert message.content[0].text == "You asked through the Messages API."
