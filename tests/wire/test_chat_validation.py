"""Chat Completions request validation: what parses, and the exact 400 for what does not."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, Literal

import httpx2
import openai
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib._parsing._completions import type_to_response_format_param
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageParam
from pydantic import BaseModel, field_validator

from mockserver.errors import InvalidRequestError
from mockserver.wire.chat import parse_chat_request
from mockserver.wire.chat_messages import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
    content_text,
)
from mockserver.wire.chat_tools import (
    ChatCompletionAllowedToolChoiceParam,
    ResponseFormatJSONSchema,
)
from mockserver.wire.validation import (
    JSON_PARSE_ERROR,
    WireModel,
    parse_json_body,
    render_param,
    validate_model,
)

BASE: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hello"}]}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}
SQL_TOOL = {
    "type": "custom",
    "custom": {
        "name": "run_sql",
        "description": "Runs one SQL statement.",
        "format": {"type": "grammar", "grammar": {"definition": "start: /.+/", "syntax": "lark"}},
    },
}
FULL: dict[str, Any] = {
    "model": "gpt-5",  # a reasoning model: every field applies to it
    "messages": [
        {"role": "developer", "content": "Be brief.", "name": "policy"},
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "You are terse.",
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                }
            ],
        },
        {
            "role": "user",
            "name": "ada",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://x.test/a.png", "detail": "low"},
                },
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "file", "file": {"filename": "a.pdf", "file_data": "JVBERi0="}},
                {"type": "video_url", "video_url": {"url": "https://x.test/v.mp4", "fps": 2}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "Need the weather first.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {"id": "call_2", "type": "custom", "custom": {"name": "run_sql", "input": "1"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "1"}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Sunny."}, {"type": "text", "text": "Warm."}],
            "refusal": None,
            "audio": {"id": "audio_1"},
        },
        {"role": "assistant", "function_call": {"name": "legacy", "arguments": "{}"}},
        {"role": "function", "name": "legacy", "content": None},
        {"role": "user", "content": "Thanks"},
    ],
    "audio": {"voice": "alloy", "format": "mp3"},
    "frequency_penalty": -0.5,
    "function_call": {"name": "legacy"},
    "functions": [
        {"name": "legacy", "description": "Old style.", "parameters": {"type": "object"}}
    ],
    "logit_bias": {"50256": -100},
    "logprobs": True,
    "max_completion_tokens": 256,
    "max_tokens": 512,
    "metadata": {"suite": "wire"},
    "modalities": ["text", "audio"],
    "moderation": {
        "model": "omni-moderation-latest",
        "policy": {"input": {"mode": "score"}, "output": {"mode": "block"}},
    },
    "n": 1,
    "parallel_tool_calls": False,
    "prediction": {"type": "content", "content": [{"type": "text", "text": "Sunny."}]},
    "presence_penalty": 1.5,
    "prompt_cache_key": "weather-bot",
    "prompt_cache_options": {"mode": "explicit", "ttl": "30m"},
    "prompt_cache_retention": "24h",
    "reasoning_effort": "low",
    "response_format": {
        "type": "json_schema",
        "json_schema": {
            "name": "weather_report",
            "description": "A report.",
            "schema": {
                "type": "object",
                "properties": {"sky": {"type": "string"}},
                "required": ["sky"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    },
    "safety_identifier": "user-hash-1",
    "seed": 42,
    "service_tier": "flex",
    "stop": ["\n\n", "END"],
    "store": True,
    "stream": True,
    "stream_options": {"include_usage": True, "include_obfuscation": False},
    "temperature": 0.7,
    "tool_choice": {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": "auto",
            "tools": [
                {"type": "function", "function": {"name": "get_weather"}},
                {"type": "custom", "custom": {"name": "run_sql"}},
            ],
        },
    },
    "tools": [WEATHER_TOOL, SQL_TOOL],
    "top_logprobs": 5,
    "top_p": 0.9,
    "user": "user-1234",
    "verbosity": "low",
    "web_search_options": {
        "search_context_size": "low",
        "user_location": {
            "type": "approximate",
            "approximate": {"city": "Paris", "country": "FR", "region": "IDF", "timezone": "CET"},
        },
    },
}


def request(**fields: Any) -> bytes:
    return orjson.dumps({**BASE, **fields})


def rejection(raw: bytes | dict[str, Any]) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as caught:
        parse_chat_request(raw)
    return caught.value


def assert_openai_error(
    error: InvalidRequestError, *, message: str, param: str | None, code: str | None
) -> None:
    assert error.status == 400
    assert error.body() == {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def user(content: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


# (fields merged into BASE, message, param, code)
SCHEMA_ERRORS = [
    pytest.param(
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "tool", "content": "42"}]},
        "Missing required parameter: 'messages[1].tool_call_id'.",
        "messages[1].tool_call_id",
        "missing_required_parameter",
        id="tool_message_without_tool_call_id_is_missing_parameter",
    ),
    pytest.param(
        {"model": 4},
        "Invalid type for 'model': expected a string, but got an integer instead.",
        "model",
        "invalid_type",
        id="integer_model_is_invalid_type",
    ),
    pytest.param(
        {"temperature": "0.5"},
        "Invalid type for 'temperature': expected a decimal, but got a string instead.",
        "temperature",
        "invalid_type",
        id="string_temperature_is_not_coerced",
    ),
    pytest.param(
        {"stream": 1},
        "Invalid type for 'stream': expected a boolean, but got an integer instead.",
        "stream",
        "invalid_type",
        id="integer_stream_is_not_a_boolean",
    ),
    pytest.param(
        {"n": 1.5},
        "Invalid type for 'n': expected an integer, but got a decimal instead.",
        "n",
        "invalid_type",
        id="decimal_n_is_not_an_integer",
    ),
    pytest.param(
        {"tools": None},
        "Invalid type for 'tools': expected an array, but got null instead.",
        "tools",
        "invalid_type",
        id="null_tools_is_invalid_type_because_not_nullable",
    ),
    pytest.param(
        {"messages": user(42)},
        "Invalid type for 'messages[0].content': expected one of a string or array of objects, "
        "but got an integer instead.",
        "messages[0].content",
        "invalid_type",
        id="integer_content_names_both_accepted_types",
    ),
    pytest.param(
        {"messages": user(["Hi"])},
        "Invalid type for 'messages[0].content[0]': expected an object, but got a string instead.",
        "messages[0].content[0]",
        "invalid_type",
        id="string_content_part_is_not_an_object",
    ),
    pytest.param(
        {"messages": [{"role": "robot", "content": "Hi"}]},
        "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', "
        "'function', 'tool', and 'developer'.",
        "messages[0].role",
        "invalid_value",
        id="unknown_role_lists_supported_roles",
    ),
    pytest.param(
        {"messages": [{"content": "Hi"}]},
        "Missing required parameter: 'messages[0].role'.",
        "messages[0].role",
        "missing_required_parameter",
        id="message_without_role_is_missing_role",
    ),
    pytest.param(
        {"messages": [{"role": 7, "content": "Hi"}]},
        "Invalid type for 'messages[0].role': expected a string, but got an integer instead.",
        "messages[0].role",
        "invalid_type",
        id="integer_role_is_invalid_type",
    ),
    pytest.param(
        {"messages": user([{"type": "picture"}])},
        "Invalid value: 'picture'. Supported values are: 'text', 'image_url', 'input_audio', "
        "'file', and 'video_url'.",
        "messages[0].content[0].type",
        "invalid_value",
        id="unknown_content_part_type_lists_supported_types",
    ),
    pytest.param(
        {"messages": user([{"type": "text"}])},
        "Missing required parameter: 'messages[0].content[0].text'.",
        "messages[0].content[0].text",
        "missing_required_parameter",
        id="text_part_without_text_is_missing_text",
    ),
    pytest.param(
        {"messages": [{"role": "system", "content": [{"type": "image_url", "image_url": {}}]}]},
        "Invalid value: 'image_url'. Supported values are: 'text'.",
        "messages[0].content[0].type",
        "invalid_value",
        id="system_message_takes_only_text_parts",
    ),
    pytest.param(
        {"tools": [{"type": "browser"}]},
        "Invalid value: 'browser'. Supported values are: 'function' and 'custom'.",
        "tools[0].type",
        "invalid_value",
        id="unknown_tool_type_reports_the_discriminator",
    ),
    pytest.param(
        {"tools": [{"type": "function", "function": {"description": "no name"}}]},
        "Missing required parameter: 'tools[0].function.name'.",
        "tools[0].function.name",
        "missing_required_parameter",
        id="function_tool_without_name_is_missing_name",
    ),
    pytest.param(
        {"tool_choice": "sometimes"},
        "Invalid value: 'sometimes'. Supported values are: 'none', 'auto', and 'required'.",
        "tool_choice",
        "invalid_value",
        id="unknown_tool_choice_mode_lists_modes",
    ),
    pytest.param(
        {"tool_choice": {"type": "tool", "name": "x"}},
        "Invalid value: 'tool'. Supported values are: 'allowed_tools', 'function', and 'custom'.",
        "tool_choice.type",
        "invalid_value",
        id="unknown_tool_choice_type_reports_the_discriminator",
    ),
    pytest.param(
        {"tool_choice": 1},
        "Invalid type for 'tool_choice': expected one of a string or an object, but got an "
        "integer instead.",
        "tool_choice",
        "invalid_type",
        id="integer_tool_choice_is_invalid_type",
    ),
    pytest.param(
        {"response_format": {"type": "xml"}},
        "Invalid value: 'xml'. Supported values are: 'text', 'json_schema', and 'json_object'.",
        "response_format.type",
        "invalid_value",
        id="unknown_response_format_type_reports_the_discriminator",
    ),
    pytest.param(
        {"response_format": "json_object"},
        "Invalid type for 'response_format': expected an object, but got a string instead.",
        "response_format",
        "invalid_type",
        id="string_response_format_is_not_an_object",
    ),
    pytest.param(
        {"temperature": 3.5},
        "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got "
        "3.5 instead.",
        "temperature",
        "decimal_above_max_value",
        id="temperature_above_two",
    ),
    pytest.param(
        {"top_p": -0.1},
        "Invalid 'top_p': decimal below minimum value. Expected a value >= 0, but got -0.1 "
        "instead.",
        "top_p",
        "decimal_below_min_value",
        id="negative_top_p",
    ),
    pytest.param(
        {"presence_penalty": 3},
        "Invalid 'presence_penalty': decimal above maximum value. Expected a value <= 2, but "
        "got 3 instead.",
        "presence_penalty",
        "decimal_above_max_value",
        id="integer_penalty_out_of_range_is_still_a_decimal_bound",
    ),
    pytest.param(
        {"n": 129},
        "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 129 instead.",
        "n",
        "integer_above_max_value",
        id="n_above_128",
    ),
    pytest.param(
        {"top_logprobs": -1, "logprobs": True},
        "Invalid 'top_logprobs': integer below minimum value. Expected a value >= 0, but got "
        "-1 instead.",
        "top_logprobs",
        "integer_below_min_value",
        id="negative_top_logprobs",
    ),
    pytest.param(
        {"max_tokens": 0},
        "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 "
        "instead.",
        "max_tokens",
        "integer_below_min_value",
        id="zero_max_tokens",
    ),
    pytest.param(
        {"max_completion_tokens": -5},
        "Invalid 'max_completion_tokens': integer below minimum value. Expected a value >= 1, "
        "but got -5 instead.",
        "max_completion_tokens",
        "integer_below_min_value",
        id="negative_max_completion_tokens",
    ),
    pytest.param(
        {"messages": []},
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead.",
        "messages",
        "empty_array",
        id="empty_messages",
    ),
    pytest.param(
        {"stop": ["a", "b", "c", "d", "e"]},
        "Invalid 'stop': array too long. Expected an array with maximum length 4, but got an "
        "array with length 5 instead.",
        "stop",
        "array_above_max_length",
        id="five_stop_sequences",
    ),
    pytest.param(
        {"stop": ["a", 2]},
        "Invalid type for 'stop[1]': expected a string, but got an integer instead.",
        "stop[1]",
        "invalid_type",
        id="non_string_stop_sequence_is_located_by_index",
    ),
    pytest.param(
        {"safety_identifier": "x" * 80},
        "Invalid 'safety_identifier': string too long. Expected a string with maximum length "
        "64, but got a string with length 80 instead.",
        "safety_identifier",
        "string_above_max_length",
        id="safety_identifier_longer_than_64",
    ),
    pytest.param(
        {"metadata": {f"k{i}": "v" for i in range(17)}},
        "Invalid 'metadata': too many properties. Expected an object with at most 16 "
        "properties, but got an object with 17 properties instead.",
        "metadata",
        "object_above_max_properties",
        id="metadata_with_17_pairs",
    ),
    pytest.param(
        {"tools": [{"type": "function", "function": {"name": "get weather"}}]},
        "Invalid 'tools[0].function.name': string does not match pattern. Expected a string "
        "that matches the pattern '^[a-zA-Z0-9_.-]{1,64}$'.",
        "tools[0].function.name",
        "invalid_value",
        id="function_name_with_space_does_not_match_pattern",
    ),
    pytest.param(
        {"response_format": {"type": "json_schema", "json_schema": {"name": "my.schema"}}},
        "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a "
        "string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
        "response_format.json_schema.name",
        "invalid_value",
        id="json_schema_name_with_dot_does_not_match_pattern",
    ),
]


@pytest.mark.parametrize(("fields", "message", "param", "code"), SCHEMA_ERRORS)
def test_schema_violation_is_answered_like_openai(
    fields: dict[str, Any], message: str, param: str, code: str
) -> None:
    assert_openai_error(rejection(request(**fields)), message=message, param=param, code=code)


CROSS_FIELD_ERRORS = [
    pytest.param(
        {"n": 2},
        "Unsupported value: 'n' does not support 2; only n=1 is supported.",
        "n",
        "unsupported_value",
        id="more_than_one_choice_is_unsupported",
    ),
    pytest.param(
        {"top_logprobs": 3},
        "Invalid value for 'top_logprobs': 'top_logprobs' is only allowed when 'logprobs' is true.",
        "top_logprobs",
        None,
        id="top_logprobs_without_logprobs",
    ),
    pytest.param(
        {"top_logprobs": 3, "logprobs": False},
        "Invalid value for 'top_logprobs': 'top_logprobs' is only allowed when 'logprobs' is true.",
        "top_logprobs",
        None,
        id="top_logprobs_with_logprobs_false",
    ),
    pytest.param(
        {"stream_options": {"include_usage": True}},
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        "stream_options",
        None,
        id="stream_options_without_stream",
    ),
    pytest.param(
        {"tool_choice": "required"},
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.",
        "tool_choice",
        None,
        id="required_tool_choice_without_tools",
    ),
    pytest.param(
        {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "tools": []},
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.",
        "tool_choice",
        None,
        id="named_tool_choice_with_empty_tools",
    ),
    pytest.param(
        {
            "tool_choice": {"type": "function", "function": {"name": "get_time"}},
            "tools": [WEATHER_TOOL],
        },
        "Invalid value for 'tool_choice': function 'get_time' is not one of the tools in 'tools'.",
        "tool_choice",
        "invalid_value",
        id="named_function_absent_from_tools",
    ),
    pytest.param(
        {
            "tool_choice": {"type": "custom", "custom": {"name": "get_weather"}},
            "tools": [WEATHER_TOOL],
        },
        "Invalid value for 'tool_choice': custom tool 'get_weather' is not one of the tools in "
        "'tools'.",
        "tool_choice",
        "invalid_value",
        id="named_custom_tool_that_is_a_function",
    ),
    pytest.param(
        {
            "tools": [WEATHER_TOOL],
            "tool_choice": {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [
                        {"type": "function", "function": {"name": "get_weather"}},
                        {"type": "function", "function": {"name": "get_time"}},
                    ],
                },
            },
        },
        "Invalid value for 'tool_choice': 'allowed_tools.tools[1]' refers to function "
        "'get_time', which is not one of the tools in 'tools'.",
        "tool_choice",
        "invalid_value",
        id="allowed_tool_absent_from_tools",
    ),
    pytest.param(
        {"tools": [WEATHER_TOOL, SQL_TOOL, WEATHER_TOOL]},
        "Invalid 'tools[2].function.name': duplicate tool name 'get_weather', already used by "
        "'tools[0].function.name'. Tool names must be unique.",
        "tools[2].function.name",
        "invalid_value",
        id="duplicate_tool_names",
    ),
    pytest.param(
        {"tools": [{"type": "function", "function": {"name": "a.b.c"}}]},
        "Invalid 'tools[0].function.name': 'a.b.c' contains more than one '.'. Function names "
        "may contain letters, digits, underscores, dashes and at most one dot.",
        "tools[0].function.name",
        "invalid_value",
        id="function_name_with_two_dots",
    ),
    pytest.param(
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": None}]},
        "Invalid value for 'content': expected a string, got null.",
        "messages[1].content",
        None,
        id="assistant_message_with_nothing_to_say",
    ),
    pytest.param(
        {"function_call": {"name": "legacy"}},
        "Invalid value for 'function_call': 'function_call' is only allowed when 'functions' "
        "are specified.",
        "function_call",
        None,
        id="named_function_call_without_functions",
    ),
]


@pytest.mark.parametrize(("fields", "message", "param", "code"), CROSS_FIELD_ERRORS)
def test_cross_field_violation_is_answered_like_openai(
    fields: dict[str, Any], message: str, param: str, code: str | None
) -> None:
    assert_openai_error(rejection(request(**fields)), message=message, param=param, code=code)


@pytest.mark.parametrize("model", [{}, {"model": None}, {"model": ""}])
def test_missing_model_is_reported_before_anything_else(model: dict[str, Any]) -> None:
    error = rejection(orjson.dumps({**model, "messages": [], "temperature": "hot"}))

    assert_openai_error(error, message="you must provide a model parameter", param=None, code=None)


@pytest.mark.parametrize("raw", [b"", b"{", b"model=gpt-4o", b"\xff\xfe", b"[1, NaN]"])
def test_unparsable_body_gets_openais_json_hint(raw: bytes) -> None:
    assert_openai_error(rejection(raw), message=JSON_PARSE_ERROR, param=None, code=None)


@pytest.mark.parametrize(
    ("raw", "got"),
    [(b"[]", "an array"), (b'"hi"', "a string"), (b"null", "null"), (b"1", "an integer")],
)
def test_body_that_is_not_an_object_is_invalid_type(raw: bytes, got: str) -> None:
    assert_openai_error(
        rejection(raw),
        message=f"Invalid type for body: expected an object, but got {got} instead.",
        param=None,
        code="invalid_type",
    )


def test_every_documented_field_parses() -> None:
    params = parse_chat_request(orjson.dumps(FULL))

    assert params.is_streaming
    assert params.include_usage
    assert params.max_output_tokens == 256
    assert params.stop_sequences == ("\n\n", "END")
    assert params.tool_names == ("get_weather", "run_sql")
    assert isinstance(params.tool_choice, ChatCompletionAllowedToolChoiceParam)
    assert isinstance(params.response_format, ResponseFormatJSONSchema)
    assert params.response_format.json_schema.schema_ == {
        "type": "object",
        "properties": {"sky": {"type": "string"}},
        "required": ["sky"],
        "additionalProperties": False,
    }
    assert isinstance(params.messages[2], ChatCompletionUserMessageParam)
    reply = params.messages[6]
    assert isinstance(reply, ChatCompletionAssistantMessageParam)
    assert content_text(reply.content) == "Sunny.\nWarm."


def test_parsed_dict_is_accepted_like_bytes() -> None:
    assert parse_chat_request(FULL) == parse_chat_request(orjson.dumps(FULL))


def test_unknown_top_level_fields_are_kept_and_nested_ones_ignored() -> None:
    params = parse_chat_request(
        request(
            gateway_trace={"id": "t-1"},
            messages=[{"role": "user", "content": "Hi", "x_vendor": 1}],
        )
    )

    assert params.extra_fields == {"gateway_trace": {"id": "t-1"}}
    assert params.messages[0].model_extra in (None, {})


def test_nullable_fields_accept_null() -> None:
    nullable = [
        "audio",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "metadata",
        "modalities",
        "moderation",
        "n",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "prompt_cache_retention",
        "reasoning_effort",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "top_logprobs",
        "top_p",
        "verbosity",
    ]
    params = parse_chat_request(request(**dict.fromkeys(nullable)))

    assert all(getattr(params, name) is None for name in nullable)


def test_reply_message_dumped_by_the_sdk_is_accepted_back() -> None:
    reply = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    messages = [
        *BASE["messages"],
        reply.model_dump(),
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]

    params = parse_chat_request(request(messages=messages))

    assert isinstance(params.messages[1], ChatCompletionAssistantMessageParam)
    assert isinstance(params.messages[2], ChatCompletionToolMessageParam)


class Weather(BaseModel):
    city: str
    celsius: float
    sky: Literal["clear", "cloudy", "rain"]


COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {
                "role": "assistant",
                "content": '{"city": "Paris", "celsius": 21.5, "sky": "clear"}',
            },
        }
    ],
}


def sent_by_sdk(call: Callable[[openai.OpenAI], object]) -> bytes:
    """The body the official SDK puts on the wire for ``call``."""
    sent: list[bytes] = []

    def answer(outgoing: httpx2.Request) -> httpx2.Response:
        sent.append(outgoing.content)
        if b'"stream":true' in outgoing.content.replace(b" ", b""):
            return httpx2.Response(
                200, content=b"data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=COMPLETION)

    transport = httpx2.MockTransport(answer)
    with openai.OpenAI(
        api_key="sk-test",
        base_url="http://mock.invalid/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    ) as client:
        result = call(client)
        if isinstance(result, openai.Stream):
            list(result)
    return sent[0]


CONVERSATION: list[ChatCompletionMessageParam] = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"celsius": 21.5}'},
]


SDK_CALLS = [
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o", messages=CONVERSATION[:2], temperature=0.2, max_completion_tokens=50
        ),
        id="plain_text",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=CONVERSATION,
            tools=[WEATHER_TOOL],
            tool_choice="auto",
            parallel_tool_calls=False,
        ),
        id="tools_with_tool_results",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=CONVERSATION[:2],
            tools=[openai.pydantic_function_tool(Weather)],
            tool_choice={"type": "function", "function": {"name": "Weather"}},
        ),
        id="pydantic_function_tool_forced",
    ),
    pytest.param(
        lambda c: c.chat.completions.parse(
            model="gpt-4o", messages=CONVERSATION[:2], response_format=Weather
        ),
        id="parse_with_pydantic_response_format",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=CONVERSATION[:2],
            response_format=type_to_response_format_param(Weather),
        ),
        id="type_to_response_format_param",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=CONVERSATION[:2],
            response_format={
                "type": "json_schema",
                "json_schema": {
                    "name": "weather",
                    "schema": to_strict_json_schema(Weather),
                    "strict": True,
                },
            },
        ),
        id="to_strict_json_schema",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=CONVERSATION[:2],
            stream=True,
            stream_options={"include_usage": True},
            logprobs=True,
            top_logprobs=2,
            stop=["\n"],
            seed=7,
            user="u-1",
            metadata={"k": "v"},
            store=True,
        ),
        id="streaming_with_options",
    ),
    pytest.param(
        lambda c: c.chat.completions.create(
            model="gpt-4o",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Describe"},
                        {
                            "type": "image_url",
                            "image_url": {"url": "data:image/png;base64,AA==", "detail": "high"},
                        },
                        {"type": "input_audio", "input_audio": {"data": "AA==", "format": "mp3"}},
                        {"type": "file", "file": {"file_id": "file-1"}},
                    ],
                }
            ],
        ),
        id="multimodal_user_content",
    ),
]


@pytest.mark.parametrize("call", SDK_CALLS)
def test_request_built_by_the_official_sdk_parses(
    call: Callable[[openai.OpenAI], object],
) -> None:
    body = sent_by_sdk(call)

    params = parse_chat_request(body)

    assert params.model == "gpt-4o"
    assert params.extra_fields == {}


class Inner(WireModel):
    size: int


class Probe(WireModel):
    either: str | list[int] | None = None
    choice: Literal["a", "b"] | Inner | None = None

    @field_validator("choice")
    @classmethod
    def _explode(cls, value: object) -> object:
        if value == "b":
            raise RuntimeError("validator bug")
        return value


@pytest.mark.parametrize(
    ("data", "message", "param"),
    [
        pytest.param(
            {"either": 5},
            "Invalid type for 'either': expected one of a string or an array, but got an "
            "integer instead.",
            "either",
            id="no_branch_takes_the_type_so_types_are_merged",
        ),
        pytest.param(
            {"either": ["x"]},
            "Invalid type for 'either[0]': expected an integer, but got a string instead.",
            "either[0]",
            id="the_branch_that_took_the_type_wins",
        ),
        pytest.param(
            {"choice": "c"},
            "Invalid value: 'c'. Supported values are: 'a' and 'b'.",
            "choice",
            id="literal_branch_wins_for_a_string",
        ),
        pytest.param(
            {"choice": {}},
            "Missing required parameter: 'choice.size'.",
            "choice.size",
            id="model_branch_wins_for_an_object",
        ),
    ],
)
def test_plain_union_reports_the_most_informative_branch(
    data: dict[str, Any], message: str, param: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        validate_model(Probe, data)

    assert caught.value.message == message
    assert caught.value.param == param


def test_validator_bug_is_loud_not_a_vague_400() -> None:
    # A bug of ours must reach the app's error boundary (logged, and failing the pytest
    # plugin's test), not hide behind a client error.
    with pytest.raises(RuntimeError, match="validator bug"):
        validate_model(Probe, {"choice": "b"})


def test_param_renders_keys_dotted_and_indexes_bracketed() -> None:
    assert render_param(("tools", 0, "function", "name")) == "tools[0].function.name"
    assert render_param(()) is None


def test_json_body_object_is_returned_as_parsed() -> None:
    assert parse_json_body(b'{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["user", "tool", "function", "text", "auto", "required", "", "x" * 70])
)
FIELD_NAMES = sorted({*FULL, "role", "content", "type", "name", "tool_call_id", "function"})
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=15,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, (*prefix, index))


FULL_PATHS = list(paths(FULL))[1:]


def mutated(path: tuple[Any, ...], replacement: Any, *, delete: bool) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(json.dumps(FULL))
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return body


def outcome(raw: bytes) -> InvalidRequestError | None:
    """The 400 ``raw`` gets, or None if it parses; any other exception escapes."""
    try:
        parse_chat_request(raw)
    except InvalidRequestError as error:
        return error
    return None


def assert_valid_or_openai_error(raw: bytes) -> None:
    error = outcome(raw)
    if error is None:
        return
    body = error.body()
    assert error.status == 400
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["message"]
    assert "could not be validated" not in body["error"]["message"]  # no translator fallback
    assert body["error"]["param"] is None or isinstance(body["error"]["param"], str)
    orjson.dumps(body)


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(path=st.sampled_from(FULL_PATHS), replacement=JSON_VALUES, delete=st.booleans())
def test_mutated_full_request_gives_only_openai_errors(
    path: tuple[Any, ...], replacement: Any, delete: bool
) -> None:
    body = mutated(path, replacement, delete=delete and not isinstance(path[-1], int))
    assert_valid_or_openai_error(json.dumps(body).encode())


@FUZZ
@given(body=st.dictionaries(st.sampled_from(FIELD_NAMES), JSON_VALUES, max_size=8))
def test_random_json_object_gives_only_openai_errors(body: dict[str, Any]) -> None:
    assert_valid_or_openai_error(json.dumps(body).encode())


@FUZZ
@given(raw=st.binary(max_size=64) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
def test_random_bytes_give_only_openai_errors(raw: bytes) -> None:
    assert_valid_or_openai_error(raw)


def test_a_model_that_does_not_reason_refuses_a_reasoning_effort() -> None:
    error = rejection({**BASE, "model": "gpt-4o-mini", "reasoning_effort": "low"})
    assert error.body()["error"] == {
        "message": "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        "type": "invalid_request_error",
        "param": "reasoning_effort",
        "code": "unsupported_parameter",
    }
    parse_chat_request({**BASE, "model": "o3-mini", "reasoning_effort": "low"})
