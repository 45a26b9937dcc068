"""An Anthropic answer captured (a message, or its stream's events) read as the neutral reply it
says: text, tool calls, thinking, a refusal, a cut by max_tokens, and the usage in neutral
counts (cache reads and writes are prompt tokens)."""

from __future__ import annotations

import json
from typing import Any

from mockserver.scenario.captured import captured_reply

USAGE = {
    "input_tokens": 10,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 5,
    "output_tokens": 7,
}


def _message(*content: dict[str, Any], stop: str = "end_turn", **more: Any) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "content": list(content),
        "stop_reason": stop,
        "usage": USAGE,
        **more,
    }


def test_a_message_with_thinking_text_and_a_tool_call() -> None:
    reply = captured_reply(
        _message(
            {"type": "thinking", "thinking": "Let me look.", "signature": "Eu.."},
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "get_weather",
                "input": {"city": "Oslo"},
            },
            stop="tool_use",
        )
    )
    assert reply == {
        "text": "Checking.",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "toolu_01"}],
        "reasoning": {"text": "Let me look."},
        "usage": {"prompt_tokens": 115, "completion_tokens": 7, "cached_tokens": 100},
    }


def test_a_refusal_keeps_its_details_and_a_cut_its_reason() -> None:
    details = {"type": "refusal", "category": "cyber", "explanation": "No."}
    refused = captured_reply(
        _message({"type": "text", "text": "I can't."}, stop="refusal", stop_details=details)
    )
    assert refused is not None
    assert refused["refusal"] == "I can't."
    assert refused["refusal_details"] == {"category": "cyber", "explanation": "No."}
    cut = captured_reply(_message({"type": "text", "text": "The sto"}, stop="max_tokens"))
    assert cut is not None
    assert cut["finish_reason"] == "length"


def test_a_streams_events_add_up_to_the_message() -> None:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "it."}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {}},
        },
        *(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": part},
            }
            for part in ('{"ci', 'ty": "Rome"}')
        ),
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 12},
        },
        {"type": "message_stop"},
    ]
    reply = captured_reply(events)
    assert reply == {
        "text": "On it.",
        "tool_calls": [{"name": "f", "arguments": {"city": "Rome"}, "id": "toolu_9"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 12},
    }
    assert json.dumps(reply)  # plain data, as a scenario file holds it
