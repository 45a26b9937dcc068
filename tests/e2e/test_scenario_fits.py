"""Scripted replies made to fit the request as a model's would: one call per turn without
parallel tool calls, partial arguments completed for strict tools, every tool result quoted."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from mockserver.scenario.library import builtin

STRICT_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city", "days"],
            "additionalProperties": False,
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"timezone": {"type": "string"}}},
    },
}


def use(control: httpx.Client, yaml_text: str) -> None:
    response = control.put(
        "/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert response.status_code == 200, response.text


def ask(client: openai.OpenAI, text: str, **params: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": text}], **params
    )


TWO_CALLS = """
rules:
  - id: both
    reply:
      tool_calls:
        - {name: get_weather, arguments: {city: Paris, days: 1}}
        - {name: get_time, arguments: {timezone: Europe/Paris}}
"""


def test_two_scripted_calls_without_parallel_tool_calls_are_refused(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, TWO_CALLS)
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, "trip", tools=[STRICT_WEATHER, TIME], parallel_tool_calls=False)
    body: Any = info.value.body
    assert (body["code"], body["param"]) == ("scenario_reply_invalid", "parallel_tool_calls")
    assert "rule 'both' makes 2 tool calls" in body["message"]
    served = ask(client, "trip", tools=[STRICT_WEATHER, TIME])  # parallel calls allowed
    assert len(served.choices[0].message.tool_calls) == 2


def test_fill_generate_completes_arguments_for_a_strict_tool(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(
        control,
        "rules:\n  - reply:\n      tool_calls:\n"
        "        - {name: get_weather, arguments: {city: Boston, unit: celsius}, fill: generate}\n",
    )
    call = ask(client, "weather", tools=[STRICT_WEATHER]).choices[0].message.tool_calls[0]
    arguments = json.loads(call.function.arguments)
    assert list(arguments) == ["city", "days"]  # unit: not in the closed schema
    assert arguments["city"] == "Boston"
    assert isinstance(arguments["days"], int)


def test_without_fill_partial_arguments_for_a_strict_tool_are_refused(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, "rules:\n  - reply: {tool_calls: [{name: get_weather, arguments: {city: X}}]}\n")
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, "weather", tools=[STRICT_WEATHER])
    assert info.value.body["code"] == "scenario_reply_invalid"  # type: ignore[index]


def test_the_shipped_tool_scenarios_fill_their_calls(control: httpx.Client) -> None:
    calls = [
        (name, rule.id, call)
        for name in ("weather-agent", "parallel-tools")
        for rule in builtin(name).rules
        for call in (rule.reply.tool_calls if rule.reply else None) or ()
    ]
    assert calls
    for name, rule_id, call in calls:
        assert call.fill == "generate", (name, rule_id)


def test_the_weather_agent_scenario_serves_a_strict_tool(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    control.put("/scenario", json={"name": "weather-agent"}).raise_for_status()
    call = ask(client, "weather?", tools=[STRICT_WEATHER]).choices[0].message.tool_calls[0]
    arguments = json.loads(call.function.arguments)
    assert arguments["city"] == "Boston"
    assert set(arguments) == {"city", "days"}


QUOTES = """
rules:
  - when: {tool_result: [{name: get_weather}, {name: get_time}]}
    reply:
      text: >-
        {{tool_result.get_weather}} | {{tool_result.0}} | {{tool_result.-1}} |
        {{tool_result.7}} | {{tool_results}}
"""


def test_every_tool_result_can_be_quoted_by_name_or_index(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, QUOTES)
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
    ]
    messages = [
        {"role": "user", "content": "trip"},
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "noon"},
    ]
    reply = client.chat.completions.create(
        model="gpt-4o", messages=messages, tools=[STRICT_WEATHER, TIME]
    )
    assert reply.choices[0].message.content == "sunny | sunny | noon |  | sunny\nnoon"
