"""Anthropic Messages requests refused with the API's own 400s: each message, located as the
API locates it (a dotted path with each union member's tag), typed ``invalid_request_error``."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.render.errors import ANTHROPIC
from mockserver.wire.messages import parse_count_tokens_request, parse_messages_request

HI = [{"role": "user", "content": "Hi"}]
TOOL = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CALL = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}
LOOP = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": [CALL]},
    {"role": "user", "content": [RESULT]},
]
THINKING_ON = {"type": "enabled", "budget_tokens": 1024}


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-6", "max_tokens": 2048, "messages": HI, **fields}


def refusal(request: dict[str, Any]) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        parse_messages_request(request)
    error = caught.value
    answer = ANTHROPIC.error(error, request_id="req_1")
    assert answer.status == 400
    assert answer.body["error"]["type"] == "invalid_request_error"
    return error.message


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (
            {"model": "m", "messages": HI},
            "max_tokens: Field required",
        ),
        (
            {"max_tokens": 5, "messages": HI},
            "model: Field required",
        ),
        (
            body(max_tokens="5"),
            "max_tokens: Input should be a valid integer",
        ),
        (
            body(max_tokens=-1),
            "max_tokens: Input should be greater than or equal to 0",
        ),
        (
            body(messages=[]),
            "messages: at least one message is required",
        ),
        (
            body(messages=[{"role": "bot", "content": "hi"}]),
            "messages.0.role: Input should be 'user', 'assistant' or 'system'",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "video"}]}]),
            "messages.0.content.0: Input tag 'video' found using 'type' does not match any of the "
            "expected tags: 'text', 'image', 'document', 'search_result', 'tool_use', "
            "'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', "
            "'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', "
            "'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', "
            "'tool_search_tool_result', 'container_upload', 'mcp_tool_use', 'mcp_tool_result'",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "text"}]}]),
            "messages.0.content.0.text.text: Field required",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "text", "text": ""}]}]),
            "messages: text content blocks must be non-empty",
        ),
        (
            body(messages=[{"role": "user", "content": ""}]),
            "messages.0: all messages must have non-empty content except for the optional final "
            "assistant message",
        ),
        (
            body(
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/bmp", "data": ""},
                            }
                        ],
                    }
                ]
            ),
            "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
            "'image/png', 'image/gif' or 'image/webp'",
        ),
        (
            body(
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "document", "source": {"type": "base64", "data": "JVBERi0="}}
                        ],
                    }
                ]
            ),
            "messages.0.content.0.document.source.base64.media_type: Field required",
        ),
        (
            body(messages=[HI[0], {"role": "assistant", "content": [{**CALL, "input": "Paris"}]}]),
            "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
        ),
        (
            body(messages=[{"role": "user", "content": [CALL]}]),
            "messages.0.content.0: `tool_use` blocks can only be in `assistant` messages",
        ),
        (
            body(messages=[HI[0], {"role": "assistant", "content": [RESULT]}]),
            "messages.1.content.0: `tool_result` blocks can only be in `user` messages",
        ),
        (
            body(messages=[*LOOP[:2], {"role": "user", "content": "and?"}], tools=[TOOL]),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_01. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message.",
        ),
        (
            body(messages=[{"role": "user", "content": [RESULT]}], tools=[TOOL]),
            "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_01. Each `tool_result` block must have a corresponding `tool_use` block in "
            "the previous message.",
        ),
        (
            body(tools=[{"name": "get_weather"}]),
            "tools.0.custom.input_schema: Field required",
        ),
        (
            body(tools=[{"name": "get_weather", "input_schema": {}}]),
            "tools.0.custom.input_schema.type: Field required",
        ),
        (
            body(tools=[{"name": "get_weather", "input_schema": {"type": "array"}}]),
            "tools.0.custom.input_schema.type: Input should be 'object'",
        ),
        (
            body(tools=[{**TOOL, "name": "get weather"}]),
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
        (
            body(tools=[TOOL, TOOL]),
            "tools: Tool names must be unique.",
        ),
        (
            body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_time"}),
            "tool_choice.tool.name: Tool 'get_time' not found in tools.",
        ),
        (
            body(tool_choice={"type": "any"}),
            "tool_choice: `tool_choice` may only be specified while providing tools.",
        ),
        (
            body(tools=[TOOL], tool_choice={"type": "tool"}),
            "tool_choice.tool.name: Field required",
        ),
        (
            body(tools=[TOOL], tool_choice={"type": "sometimes"}),
            "tool_choice: Input tag 'sometimes' found using 'type' does not match any of the "
            "expected tags: 'auto', 'any', 'tool', 'none'",
        ),
        (
            body(thinking={"type": "enabled", "budget_tokens": 1000}),
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            body(thinking={"type": "enabled"}),
            "thinking.enabled.budget_tokens: Field required",
        ),
        (
            body(max_tokens=1024, thinking=THINKING_ON),
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/"
            "extended-thinking#max-tokens-and-context-window-size",
        ),
        (
            body(thinking=THINKING_ON, tools=[TOOL], tool_choice={"type": "any"}),
            "Thinking may not be enabled when tool_choice forces tool use.",
        ),
        (
            body(thinking=THINKING_ON, temperature=0.5),
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/"
            "extended-thinking#feature-compatibility",
        ),
        (
            body(messages=LOOP, tools=[TOOL], thinking=THINKING_ON),
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with "
            "a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
            "blocks). We recommend you include thinking blocks from previous turns. To avoid "
            "this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
        ),
        (
            body(messages=LOOP, tools=[TOOL], thinking={"type": "adaptive"}),
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with "
            "a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
            "blocks). We recommend you include thinking blocks from previous turns. To avoid "
            "this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
        ),
        (
            body(system=[{"type": "text", "text": ""}]),
            "system: text content blocks must be non-empty",
        ),
        (
            body(temperature=1.5),
            "temperature: Input should be less than or equal to 1",
        ),
        (
            body(output_config={"format": {"type": "json_schema"}}),
            "output_config.format.schema: Field required",
        ),
        (
            body(stream="yes"),
            "stream: Input should be a valid boolean",
        ),
    ],
)
def test_a_refused_request_gets_the_apis_message(request_: dict[str, Any], message: str) -> None:
    assert refusal(request_) == message


@pytest.mark.parametrize(
    "request_",
    [
        body(),
        body(stream=True, stop_sequences=["END"], metadata={"user_id": "u-1"}),
        body(messages=[{"role": "assistant", "content": "Prefilled"}, *HI]),
        body(messages=[*HI, {"role": "assistant", "content": ""}]),
        body(messages=LOOP, tools=[TOOL], tool_choice={"type": "auto"}),
        body(
            messages=[
                *LOOP[:1],
                {
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "", "signature": "Eu…"}, CALL],
                },
                LOOP[2],
            ],
            tools=[TOOL],
            thinking=THINKING_ON,
        ),
        body(
            messages=[
                *LOOP[:1],
                {
                    "role": "assistant",
                    "content": [{"type": "redacted_thinking", "data": "Ep"}, CALL],
                },
                LOOP[2],
            ],
            tools=[TOOL],
            thinking={"type": "adaptive", "display": "omitted"},
        ),
        body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather"}),
        body(tools=[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]),
        body(output_config={"effort": "high", "format": {"type": "json_schema", "schema": {}}}),
        body(output_format={"type": "json_schema", "schema": {"type": "object"}}),
        body(temperature=1, top_p=0.5, top_k=40),
        body(service_tier="standard_only"),
    ],
)
def test_what_real_clients_send_is_accepted(request_: dict[str, Any]) -> None:
    parse_messages_request(request_)


def test_claude_codes_request_is_accepted() -> None:
    """A ``role: system`` message, a system prompt of cached blocks, a 2020-12 ``$schema``,
    ``defer_loading``, adaptive thinking with its display omitted, and beta fields."""
    cached = {"type": "ephemeral"}
    parse_messages_request(
        {
            "model": "claude-opus-5-5",
            "max_tokens": 128000,
            "system": [
                {"type": "text", "text": "You are Claude Code."},
                {"type": "text", "text": "Be brief.", "cache_control": cached},
            ],
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "hi", "cache_control": cached}],
                },
                {"role": "system", "content": "Context.", "cache_control": cached},
            ],
            "tools": [
                {
                    **TOOL,
                    "defer_loading": True,
                    "input_schema": {
                        "$schema": "https://json-schema.org/draft/2020-12/schema",
                        "type": "object",
                        "properties": {},
                    },
                }
            ],
            "metadata": {"user_id": "user_abc"},
            "thinking": {"type": "adaptive", "display": "omitted"},
            "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
            "output_config": {"effort": "medium"},
            "stream": True,
        }
    )


def test_count_tokens_takes_a_conversation_without_max_tokens() -> None:
    parse_count_tokens_request({"model": "m", "messages": HI, "tools": [TOOL]})
    with pytest.raises(InvalidRequestError, match="messages: at least one message is required"):
        parse_count_tokens_request({"model": "m", "messages": []})
