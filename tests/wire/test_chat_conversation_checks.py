"""Checks on the conversation as a whole: tool messages answer tool calls, and JSON mode is
asked for in words — with the real API's messages and ``param`` paths."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from mockserver.errors import InvalidRequestError
from mockserver.http.server import BackgroundServer
from mockserver.wire.chat import parse_chat_request

USER = {"role": "user", "content": "Weather in Oslo and Rome?"}


def calling(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "weather", "arguments": "{}"}}
            for i in ids
        ],
    }


def answer(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "sunny"}


def refusal(messages: list[dict[str, Any]], **extra: Any) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as caught:
        parse_chat_request({"model": "m", "messages": messages, **extra})
    return caught.value


def test_answered_calls_in_any_order_are_accepted() -> None:
    messages = [USER, calling("a", "b"), answer("b"), answer("a"), USER, calling("c"), answer("c")]
    parse_chat_request({"model": "m", "messages": messages})


def test_a_tool_message_with_no_call_before_it_is_refused() -> None:
    error = refusal([USER, answer("a")])
    assert error.message == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'."
    )
    assert (error.param, error.code, error.status) == ("messages.[1].role", None, 400)


def test_a_tool_message_after_the_conversation_moved_on_is_refused() -> None:
    error = refusal([USER, calling("a"), answer("a"), USER, answer("a")])
    assert error.param == "messages.[4].role"


def test_an_answer_to_an_unknown_call_is_refused() -> None:
    error = refusal([USER, calling("a"), answer("zz")])
    assert error.message == (
        "Invalid parameter: 'tool_call_id' of 'zz' not found in 'tool_calls' of previous message."
    )
    assert error.param == "messages.[2].tool_call_id"


def test_calls_left_unanswered_are_refused_where_the_conversation_goes_on() -> None:
    error = refusal([USER, calling("a", "b", "c"), answer("b"), USER])
    assert error.message == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "a, c"
    )
    assert error.param == "messages.[3].role"


JSON_MODE = {"response_format": {"type": "json_object"}}


def test_json_mode_without_the_word_json_is_refused() -> None:
    error = refusal([{"role": "user", "content": "Give me a colour."}], **JSON_MODE)
    assert error.message == (
        "'messages' must contain the word 'json' in some form, to use 'response_format' of "
        "type 'json_object'."
    )
    assert error.param == "messages"


@pytest.mark.parametrize(
    "message",
    [
        {"role": "system", "content": "Answer in JSON."},
        {"role": "user", "content": [{"type": "text", "text": "as Json please"}]},
    ],
)
def test_json_mode_with_the_word_anywhere_is_accepted(message: dict[str, Any]) -> None:
    parse_chat_request({"model": "m", "messages": [message], **JSON_MODE})


def test_the_sdk_sees_the_refusal(server: BackgroundServer, api_key: str) -> None:
    client = openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0)
    with client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="gpt-4o-mini", messages=[USER, answer("a")])
    assert caught.value.param == "messages.[1].role"
