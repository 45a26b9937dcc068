"""Generated tool calls converge: at most one call per offered tool, then the output tool."""

from __future__ import annotations

import random

import pytest

from mockserver.prompt import Message, Prompt, Tool, ToolCallRef, ToolChoice
from mockserver.reply.tool_policy import choose_tools, is_output_tool

WEATHER = Tool(name="get_weather", parameters={"type": "object", "properties": {}})
TIME = Tool(name="get_time", parameters={"type": "object", "properties": {}})
FINAL = Tool(name="final_result", description="The final response which ends this conversation")


def prompt(*messages: Message, tools: tuple[Tool, ...], mode: str = "required") -> Prompt:
    return Prompt(
        api="chat",
        model="m",
        messages=messages,
        tools=tools,
        tool_choice=ToolChoice(mode=mode),  # type: ignore[arg-type]
    )


def called(name: str, call_id: str) -> tuple[Message, Message]:
    call = ToolCallRef(call_id=call_id, name=name, arguments="{}")
    return Message("assistant", "", tool_calls=(call,)), Message("tool", "ok", tool_call_id=call_id)


def names(p: Prompt) -> list[str]:
    return [t.name for t in choose_tools(p, rng=random.Random(0))]


@pytest.mark.parametrize(
    "tool",
    [
        FINAL,
        Tool(name="final_result_Weather"),
        Tool(name="final_answer"),
        Tool(name="FinalOutput"),
        Tool(name="structured_output"),
        Tool(name="submit", description="Give the final answer to the user."),
    ],
)
def test_output_tools_are_known_by_name_or_description(tool: Tool) -> None:
    assert is_output_tool(tool)


@pytest.mark.parametrize(
    "tool",
    [
        WEATHER,
        Tool(name="finalize_order"),
        Tool(name="final", kind="custom"),
        Tool(name="get_result"),
    ],
)
def test_other_tools_are_not_output_tools(tool: Tool) -> None:
    assert not is_output_tool(tool)


def test_the_first_turn_calls_a_working_tool_before_the_output_tool() -> None:
    first = prompt(Message("user", "What's the weather in Paris?"), tools=(FINAL, WEATHER))
    assert names(first) == ["get_weather"]


def test_after_a_tool_result_required_calls_the_output_tool() -> None:
    after = prompt(
        Message("user", "What's the weather?"), *called("get_weather", "c1"), tools=(WEATHER, FINAL)
    )
    assert names(after) == ["final_result"]


def test_after_a_tool_result_auto_calls_an_offered_output_tool() -> None:
    after = prompt(
        Message("user", "weather?"),
        *called("get_weather", "c1"),
        tools=(WEATHER, FINAL),
        mode="auto",
    )
    assert names(after) == ["final_result"]


def test_after_a_tool_result_auto_without_output_tool_answers_in_text() -> None:
    after = prompt(
        Message("user", "weather?"), *called("get_weather", "c1"), tools=(WEATHER,), mode="auto"
    )
    assert names(after) == []


def test_required_without_output_tool_calls_each_tool_once_before_repeating() -> None:
    messages: list[Message] = [Message("user", "What's the weather?")]
    seen = []
    for turn in range(3):
        (name,) = names(prompt(*messages, tools=(WEATHER, TIME)))
        seen.append(name)
        messages += called(name, f"c{turn}")
    assert seen == ["get_weather", "get_time", "get_weather"]


def test_a_new_user_message_starts_a_new_exchange() -> None:
    again = prompt(
        Message("user", "weather?"),
        *called("get_weather", "c1"),
        Message("assistant", "Sunny."),
        Message("user", "And the weather tomorrow?"),
        tools=(WEATHER, FINAL),
    )
    assert names(again) == ["get_weather"]


def test_a_named_tool_choice_is_obeyed() -> None:
    p = Prompt(
        api="chat",
        model="m",
        messages=(Message("user", "weather?"), *called("get_weather", "c1")),
        tools=(WEATHER, FINAL),
        tool_choice=ToolChoice(mode="required", allowed=("get_weather",)),
    )
    assert names(p) == ["get_weather"]
