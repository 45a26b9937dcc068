"""Reply → ``response`` body: key order, echoed defaults, output items, states, stored items."""

from __future__ import annotations

from typing import Any

from openai.types.responses import Response, ResponseItem
from pydantic import TypeAdapter

from mockserver.render.responses import ResponseMeta, echo_params, response_body
from mockserver.render.responses_items import stored_item
from mockserver.reply.model import Reasoning, Reply, Token, ToolCall, Usage

ITEMS: TypeAdapter[Any] = TypeAdapter(ResponseItem)


def _meta(body: dict[str, Any] | None = None, *include: str) -> ResponseMeta:
    request = {"model": "gpt-4o-mini", **(body or {})}
    return ResponseMeta(
        id="resp_test",
        created_at=100,
        echo=echo_params(request, service_tier="default"),
        include=frozenset(include),
    )


REPLY = Reply(usage=Usage(12, 3, cached_tokens=2), text="Hi there", tokens=(Token("Hi"),))


def test_body_keys_come_in_the_real_api_order() -> None:
    body = response_body(_meta(), REPLY, status="completed", completed_at=101)
    assert list(body) == [
        "id",
        "object",
        "created_at",
        "status",
        "background",
        "completed_at",
        "error",
        "incomplete_details",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "model",
        "output",
        "parallel_tool_calls",
        "previous_response_id",
        "prompt_cache_key",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "usage",
        "user",
        "metadata",
    ]
    Response.model_validate(body)


def test_unset_parameters_echo_the_real_api_defaults() -> None:
    body = response_body(_meta(), REPLY, status="completed", completed_at=101)
    assert body["temperature"] == 1.0
    assert body["top_p"] == 1.0
    assert body["tool_choice"] == "auto"
    assert body["tools"] == []
    assert body["truncation"] == "disabled"
    assert body["text"] == {"format": {"type": "text"}, "verbosity": "medium"}
    assert body["reasoning"] == {"effort": None, "summary": None}
    assert body["store"] is True
    assert body["background"] is False
    assert body["metadata"] == {}


def test_usage_has_the_responses_names_and_details() -> None:
    body = response_body(_meta(), REPLY, status="completed", completed_at=101)
    assert body["usage"] == {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 2, "cache_write_tokens": 0},
        "output_tokens": 3,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }


def test_function_tools_are_echoed_with_strict_defaulting_to_true() -> None:
    tool = {"type": "function", "name": "f", "parameters": {"type": "object"}}
    web = {"type": "web_search"}
    body = response_body(_meta({"tools": [tool, web]}), REPLY, status="completed")
    assert body["tools"] == [
        {
            "type": "function",
            "description": None,
            "name": "f",
            "parameters": {"type": "object"},
            "strict": True,
        },
        web,
    ]


def test_conversation_and_prompt_appear_only_when_used() -> None:
    meta = _meta({"conversation": "conv_1", "prompt": {"id": "pmpt_1"}})
    body = response_body(meta, REPLY, status="completed", completed_at=1)
    assert body["conversation"] == {"id": "conv_1"}
    assert body["prompt"] == {"id": "pmpt_1", "variables": None, "version": None}
    assert list(body).index("conversation") == list(body).index("completed_at") + 1
    Response.model_validate(body)


def test_unfinished_states_have_no_output_usage_or_completion_time() -> None:
    for status in ("queued", "in_progress", "cancelled"):
        body = response_body(_meta(), REPLY, status=status, completed_at=5)
        assert body["output"] == []
        assert body["usage"] is None
        assert body["completed_at"] is None
        Response.model_validate(body)


def test_tool_call_replies_render_function_and_custom_call_items() -> None:
    reply = Reply(
        usage=Usage(1, 1),
        tool_calls=(ToolCall("call_a", "f", "{}"), ToolCall("call_b", "g", "x", kind="custom")),
        reasoning=Reasoning(summary=(), tokens=10),
        finish_reason="tool_calls",
    )
    output = response_body(_meta(), reply, status="completed")["output"]
    assert [item["type"] for item in output] == ["reasoning", "function_call", "custom_tool_call"]
    assert output[1] == {
        "id": output[1]["id"],
        "type": "function_call",
        "status": "completed",
        "arguments": "{}",
        "call_id": "call_a",
        "name": "f",
    }
    assert output[1]["id"].startswith("fc_")
    assert output[2]["id"].startswith("ctc_")
    assert "encrypted_content" not in output[0]


def test_budget_spent_on_reasoning_leaves_no_empty_message() -> None:
    reply = Reply(
        usage=Usage(1, 16, reasoning_tokens=16),
        text="",
        reasoning=Reasoning(tokens=16),
        finish_reason="length",
    )
    body = response_body(_meta(), reply, status="incomplete")
    assert [item["type"] for item in body["output"]] == ["reasoning"]
    assert body["incomplete_details"] == {"reason": "max_output_tokens"}


def test_stored_items_get_ids_statuses_and_content_parts() -> None:
    user = stored_item({"type": "message", "role": "user", "content": "Hi"}, owner="r", index=0)
    assert user == {
        "id": user["id"],
        "type": "message",
        "status": "completed",
        "content": [{"type": "input_text", "text": "Hi"}],
        "role": "user",
    }
    assistant = stored_item(
        {"type": "message", "role": "assistant", "content": "Yo"}, owner="r", index=1
    )
    output = {"type": "function_call_output", "call_id": "call_1", "output": "21C"}
    result = stored_item(output, owner="r", index=2)
    for item in (user, assistant, result):
        ITEMS.validate_python(item)
    assert result["id"] != user["id"]
    kept = stored_item({**output, "id": "fco_mine"}, owner="r", index=2)
    assert kept["id"] == "fco_mine"
