"""Responses request validation: what parses, and the exact 400 for what does not."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.wire.responses import (
    parse_compact_request,
    parse_input_tokens_request,
    parse_responses_request,
)
from mockserver.wire.responses_conversations import (
    parse_conversation_create,
    parse_conversation_update,
)

BASE: dict[str, Any] = {"model": "gpt-4o", "input": "Hello"}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
ALL_ITEMS: list[dict[str, Any]] = [
    {"role": "user", "content": "no type: an easy input message"},
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "x"}]},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "detail": "auto", "image_url": "https://x/y.png"},
            {"type": "input_file", "file_id": "file_1"},
        ],
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "hi", "annotations": []}],
    },
    {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "21C"},
    {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [{"type": "input_text", "text": "21C"}],
    },
    {"type": "custom_tool_call", "call_id": "call_2", "name": "sql", "input": "SELECT 1"},
    {"type": "custom_tool_call_output", "call_id": "call_2", "output": "1"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "hm"}]},
    {"type": "item_reference", "id": "msg_1"},
    {"type": "compaction", "encrypted_content": "gAAAAABxyz"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
    {"type": "file_search_call", "id": "fs_1", "queries": ["q"], "status": "completed"},
    {"type": "computer_call", "call_id": "c", "action": {"type": "screenshot"}},
    {"type": "computer_call_output", "call_id": "c", "output": {"type": "computer_screenshot"}},
    {"type": "local_shell_call", "id": "l", "call_id": "c", "status": "completed", "action": {}},
    {"type": "local_shell_call_output", "id": "l", "output": "{}"},
    {"type": "shell_call", "call_id": "s", "action": {"commands": ["ls"]}},
    {"type": "shell_call_output", "call_id": "s", "output": []},
    {"type": "apply_patch_call", "call_id": "p", "status": "completed", "operation": {}},
    {"type": "apply_patch_call_output", "call_id": "p", "status": "completed"},
    {"type": "mcp_list_tools", "id": "m", "server_label": "d", "tools": []},
    {"type": "mcp_approval_request", "id": "m", "server_label": "d", "name": "n", "arguments": ""},
    {"type": "mcp_approval_response", "approval_request_id": "m", "approve": True},
    {"type": "mcp_call", "id": "m", "server_label": "d", "name": "n", "arguments": "{}"},
    {"type": "image_generation_call", "id": "i", "status": "completed"},
    {"type": "code_interpreter_call", "id": "ci", "status": "completed", "container_id": "c"},
]
ALL_TOOLS: list[dict[str, Any]] = [
    WEATHER,
    {
        "type": "custom",
        "name": "sql",
        "format": {"type": "grammar", "syntax": "lark", "definition": "s"},
    },
    {"type": "web_search"},
    {"type": "web_search_preview", "search_context_size": "low"},
    {"type": "file_search", "vector_store_ids": ["vs_1"]},
    {"type": "computer_use_preview", "display_width": 1, "display_height": 1, "environment": "mac"},
    {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example"},
    {"type": "code_interpreter", "container": {"type": "auto"}},
    {"type": "image_generation"},
    {"type": "local_shell"},
    {"type": "shell"},
    {"type": "apply_patch"},
]


def _error(body: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(InvalidRequestError) as info:
        parse_responses_request(body)
    error: dict[str, Any] = info.value.body()["error"]
    assert info.value.status == 400
    return error


def test_every_item_type_of_the_contract_is_accepted() -> None:
    parse_responses_request({**BASE, "input": ALL_ITEMS})


def test_every_tool_type_is_accepted_with_named_and_hosted_tool_choices() -> None:
    for choice in (
        "required",
        {"type": "function", "name": "get_weather"},
        {"type": "custom", "name": "sql"},
        {"type": "mcp", "server_label": "docs"},
        {"type": "web_search_preview"},
        {"type": "apply_patch"},
        {"type": "shell"},
        {
            "type": "allowed_tools",
            "mode": "auto",
            "tools": [{"type": "function", "name": "get_weather"}],
        },
    ):
        parse_responses_request({**BASE, "tools": ALL_TOOLS, "tool_choice": choice})


def test_gateway_extensions_and_provider_model_names_are_accepted() -> None:
    params = parse_responses_request(
        {
            **BASE,
            "model": "openai/gpt-5",
            "provider": {
                "routing": {"type": "priority", "providers": ["openai", "anthropic"]},
                "fallback": "anthropic",
            },
            "model_routing_config": {
                "available_models": ["gpt-5", "gpt-4o"],
                "task_info": {"task_type": "chat", "complexity": "high"},
            },
            "x_vendor_field": 1,
        }
    )
    assert params.model == "openai/gpt-5"


def test_all_documented_parameters_parse() -> None:
    parse_responses_request(
        {
            **BASE,
            "model": "gpt-5",  # a reasoning model: every field applies to it
            "instructions": "Be brief.",
            "store": False,
            "stream": True,
            "stream_options": {"include_obfuscation": False},
            "metadata": {"k": "v"},
            "temperature": 0.2,
            "top_p": 0.5,
            "top_logprobs": 3,
            "max_output_tokens": 100,
            "max_tool_calls": 2,
            "parallel_tool_calls": False,
            "text": {"format": {"type": "json_object"}, "verbosity": "low"},
            "reasoning": {"effort": "high", "summary": "detailed"},
            "include": ["message.output_text.logprobs", "reasoning.encrypted_content"],
            "truncation": "auto",
            "prompt": {"id": "pmpt_1", "variables": {"city": "Boston"}, "version": "2"},
            "prompt_cache_key": "k",
            "safety_identifier": "user-1",
            "service_tier": "flex",
            "user": "u",
            "conversation": {"id": "conv_1"},
        }
    )


def test_missing_model_is_a_missing_parameter() -> None:
    error = _error({"input": "Hi"})
    assert error["message"] == "Missing required parameter: 'model'."
    assert error["param"] == "model"


def test_a_function_tool_must_give_its_parameters_even_if_null() -> None:
    error = _error({**BASE, "tools": [{"type": "function", "name": "f"}]})
    assert error["message"] == "Missing required parameter: 'tools[0].parameters'."
    assert (error["param"], error["code"]) == ("tools[0].parameters", "missing_required_parameter")
    tool = {"type": "function", "name": "f", "parameters": None}
    assert parse_responses_request({**BASE, "tools": [tool]}).tools


def test_input_of_the_wrong_type_names_the_expected_types() -> None:
    error = _error({**BASE, "input": 42})
    assert error["param"] == "input"
    assert error["code"] == "invalid_type"
    assert "one of a string or array of objects" in error["message"]


def test_model_of_the_wrong_type_is_invalid_type() -> None:
    error = _error({**BASE, "model": 5})
    assert error == {
        "message": "Invalid type for 'model': expected a string, but got an integer instead.",
        "type": "invalid_request_error",
        "param": "model",
        "code": "invalid_type",
    }


def test_unknown_item_type_lists_the_supported_types() -> None:
    error = _error({**BASE, "input": [{"type": "telepathy"}]})
    assert error["param"] == "input[0].type"
    assert error["message"].startswith("Invalid value: 'telepathy'. Supported values are: ")
    assert "'function_call_output'" in error["message"]


def test_item_missing_its_required_field_is_located() -> None:
    error = _error({**BASE, "input": [{"type": "function_call_output", "output": "x"}]})
    assert error["message"] == "Missing required parameter: 'input[0].call_id'."


def test_bad_role_and_content_part_are_located() -> None:
    assert _error({**BASE, "input": [{"role": "robot", "content": "x"}]})["param"] == (
        "input[0].role"
    )
    bad_part = [{"role": "user", "content": [{"type": "input_video"}]}]
    assert _error({**BASE, "input": bad_part})["param"] == "input[0].content[0].type"


def test_previous_response_id_and_conversation_are_mutually_exclusive() -> None:
    error = _error({**BASE, "previous_response_id": "resp_1", "conversation": "conv_1"})
    assert error["code"] == "mutually_exclusive_parameters"
    assert "'previous_response_id' or 'conversation'" in error["message"]


def test_nothing_to_answer_is_a_missing_input() -> None:
    assert _error({"model": "gpt-4o"})["message"] == "Missing required parameter: 'input'."


def test_bounds_follow_the_real_api() -> None:
    assert _error({**BASE, "max_output_tokens": 15})["code"] == "integer_below_min_value"
    assert _error({**BASE, "temperature": 2.5})["code"] == "decimal_above_max_value"
    assert _error({**BASE, "top_logprobs": 21})["param"] == "top_logprobs"


def test_unknown_include_value_is_invalid() -> None:
    assert _error({**BASE, "include": ["everything"]})["param"] == "include[0]"


def test_tool_choice_must_name_an_offered_tool() -> None:
    error = _error({**BASE, "tools": [WEATHER], "tool_choice": {"type": "function", "name": "x"}})
    assert error["param"] == "tool_choice"
    assert "'x'" in error["message"]


def test_duplicate_tool_names_are_rejected() -> None:
    assert _error({**BASE, "tools": [WEATHER, WEATHER]})["param"] == "tools[1].name"


def test_json_schema_format_needs_a_name_and_schema() -> None:
    text = {"format": {"type": "json_schema", "schema": {}}}
    assert _error({**BASE, "text": text})["param"] == "text.format.name"


def test_stream_options_need_stream_and_background_needs_store() -> None:
    assert _error({**BASE, "stream_options": {}})["param"] == "stream_options"
    assert _error({**BASE, "background": True, "store": False})["param"] == "background"


def test_compact_and_count_share_the_context_checks() -> None:
    parse_compact_request({"model": "gpt-4o", "input": ALL_ITEMS[:3]})
    parse_input_tokens_request({"input": "Hi"})
    with pytest.raises(InvalidRequestError):
        parse_compact_request({"model": "m", "previous_response_id": "r", "conversation": "c"})


def test_conversation_bodies_are_checked() -> None:
    parse_conversation_create({"items": ALL_ITEMS[:2], "metadata": {"topic": "x"}})
    with pytest.raises(InvalidRequestError) as info:
        parse_conversation_update({})
    assert info.value.param == "metadata"


JSON_MODE = {"text": {"format": {"type": "json_object"}}}


def test_json_mode_without_the_word_json_in_the_input_is_refused() -> None:
    body = {"model": "m", "input": "Name a colour.", "instructions": "Reply in JSON.", **JSON_MODE}
    with pytest.raises(InvalidRequestError) as caught:
        parse_responses_request(body)
    assert caught.value.message == (
        "Response input messages must contain the word 'json' in some form to use "
        "'text.format' of type 'json_object'."
    )
    assert caught.value.param == "text.format"


@pytest.mark.parametrize(
    "extra",
    [
        {"input": "Name a colour, as JSON."},
        {"input": [{"role": "user", "content": [{"type": "input_text", "text": "json please"}]}]},
        {"input": "Name a colour.", "previous_response_id": "resp_1"},  # said earlier, maybe
    ],
)
def test_json_mode_with_the_word_in_the_conversation_is_accepted(extra: dict[str, Any]) -> None:
    parse_responses_request({"model": "m", **extra, **JSON_MODE})


@pytest.mark.parametrize(
    ("reasoning", "param"),
    [
        ({"summary": "auto"}, "reasoning.summary"),
        ({"effort": "low", "summary": "auto"}, "reasoning.effort"),
    ],
)
def test_a_model_that_does_not_reason_refuses_reasoning(reasoning: Any, param: str) -> None:
    error = _error({**BASE, "model": "gpt-4o-mini", "reasoning": reasoning})
    assert error == {
        "message": f"Unsupported parameter: '{param}' is not supported with this model.",
        "type": "invalid_request_error",
        "param": param,
        "code": "unsupported_parameter",
    }


@pytest.mark.parametrize("model", ["gpt-5-mini", "o4-mini", "codex-mini-latest", "my-own-model"])
def test_reasoning_models_and_unknown_names_take_reasoning(model: str) -> None:
    parse_responses_request({**BASE, "model": model, "reasoning": {"summary": "auto"}})
