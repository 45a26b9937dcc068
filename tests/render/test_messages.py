"""Reply → an Anthropic message and its stream events: blocks, ids, stop reasons, usage, the
order of events and what their deltas join to."""

from __future__ import annotations

import json

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.render.messages import MessageMeta, message_body, signature_of, tool_use_id
from mockserver.render.messages_stream import PING, frame_event, message_events
from mockserver.reply.model import Reasoning, RefusalDetails, Reply, Token, ToolCall, Usage
from mockserver.reply.tokens import tokenize
from mockserver.values import Json

META = MessageMeta(id="msg_01abc", model="claude-sonnet-4-6")
THINKING = MessageMeta(id="msg_01abc", model="claude-sonnet-4-6", thinking=True)
USAGE = Usage(prompt_tokens=12, completion_tokens=7)
CALL = ToolCall(call_id="call_xyz", name="get_weather", arguments='{"city":"Paris"}')


def spelled(text: str) -> tuple[Token, ...]:
    return tuple(Token(piece) for piece in tokenize(text))


def text_reply(text: str = "Hello there", **fields: object) -> Reply:
    return Reply(usage=USAGE, text=text, tokens=spelled(text), **fields)  # type: ignore[arg-type]


def test_a_text_message_has_the_apis_keys_in_its_order() -> None:
    body = message_body(text_reply(), META)
    assert list(body) == [
        "model",
        "id",
        "type",
        "role",
        "content",
        "stop_reason",
        "stop_sequence",
        "stop_details",
        "usage",
    ]
    assert body["content"] == [{"type": "text", "text": "Hello there"}]
    assert (body["stop_reason"], body["stop_sequence"], body["stop_details"]) == (
        "end_turn",
        None,
        None,
    )
    assert body["usage"] == {
        "input_tokens": 12,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 7,
        "service_tier": "standard",
        "inference_geo": "global",
    }


@pytest.mark.parametrize(
    ("reply", "reason", "sequence"),
    [
        (text_reply(finish_reason="length"), "max_tokens", None),
        (text_reply(stop_sequence="END"), "stop_sequence", "END"),
        (Reply(usage=USAGE, tool_calls=(CALL,), finish_reason="tool_calls"), "tool_use", None),
        (Reply(usage=USAGE, refusal="No."), "refusal", None),
        (text_reply(finish_reason="content_filter"), "refusal", None),
    ],
)
def test_how_a_reply_ended_is_its_stop_reason(
    reply: Reply, reason: str, sequence: str | None
) -> None:
    body = message_body(reply, META)
    assert (body["stop_reason"], body["stop_sequence"]) == (reason, sequence)


def test_a_refusal_says_its_category_and_explanation() -> None:
    details = RefusalDetails(category="cyber", explanation="It could enable malware.")
    body = message_body(Reply(usage=USAGE, refusal="I can't.", refusal_details=details), META)
    assert body["content"] == [{"type": "text", "text": "I can't."}]
    assert body["stop_details"] == {
        "type": "refusal",
        "category": "cyber",
        "explanation": "It could enable malware.",
    }


def test_tool_calls_are_tool_use_blocks_with_toolu_ids_and_object_inputs() -> None:
    body = message_body(Reply(usage=USAGE, tool_calls=(CALL,), finish_reason="tool_calls"), META)
    (block,) = body["content"]
    assert block["type"] == "tool_use"
    assert block["id"].startswith("toolu_01")
    assert len(block["id"]) == len("toolu_01D7FLrfh4GYq7yT1ULFeyMV")
    assert block["id"] == tool_use_id(CALL)  # the same call, the same id
    assert block["input"] == {"city": "Paris"}
    scripted = ToolCall(call_id="toolu_mine", name="get_weather", arguments="{}")
    assert tool_use_id(scripted) == "toolu_mine"


def test_arguments_that_are_no_object_are_the_scenarios_mistake() -> None:
    call = ToolCall(call_id="call_1", name="get_weather", arguments="Paris")
    with pytest.raises(InvalidRequestError, match="not a JSON object") as caught:
        message_body(Reply(usage=USAGE, tool_calls=(call,)), META)
    assert caught.value.code == "scenario_reply_invalid"


def test_reasoning_is_a_signed_thinking_block_only_when_thinking_was_asked() -> None:
    reasoning = Reasoning(summary=("I weighed it.",), tokens=40)
    reply = Reply(
        usage=Usage(12, 47, reasoning_tokens=40),
        text="Hello there",
        tokens=spelled("Hello there"),
        reasoning=reasoning,
    )
    thinking, text = message_body(reply, THINKING)["content"]
    assert thinking == {
        "type": "thinking",
        "thinking": "I weighed it.",
        "signature": signature_of("I weighed it.", model="claude-sonnet-4-6"),
    }
    assert text["type"] == "text"
    assert message_body(reply, THINKING)["usage"]["output_tokens_details"] == {
        "thinking_tokens": 40
    }
    assert [b["type"] for b in message_body(reply, META)["content"]] == ["text"]


def test_redacted_reasoning_is_a_redacted_thinking_block() -> None:
    reply = text_reply(reasoning=Reasoning(tokens=9, redacted=True))
    block = message_body(reply, THINKING)["content"][0]
    assert block["type"] == "redacted_thinking"
    assert block["data"]
    assert block["data"] == message_body(reply, THINKING)["content"][0]["data"]  # stable


def events_of(reply: Reply, meta: MessageMeta = META) -> list[Json]:
    events = message_events(reply, meta)
    assert events, "a stream has events"
    return events


def test_a_stream_starts_with_message_start_and_pings_after_the_first_block_starts() -> None:
    events = events_of(text_reply())
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["message_start", "content_block_start", "ping"]
    assert events[2] is PING
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    start = events[0]["message"]
    assert start["content"] == []
    assert start["stop_reason"] is None
    assert start["usage"]["input_tokens"] == 12
    assert start["usage"]["output_tokens"] == 1
    delta = events[-2]
    assert delta["delta"] == {
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "stop_details": None,
    }
    assert delta["usage"] == {
        "input_tokens": 12,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 7,
    }


def test_blocks_are_indexed_in_order_and_their_deltas_join_to_the_message() -> None:
    reasoning = Reasoning(text="Think first.", tokens=5)
    reply = Reply(
        usage=USAGE,
        text="Let me check.",
        tokens=spelled("Let me check."),
        reasoning=reasoning,
        tool_calls=(CALL, ToolCall(call_id="call_2", name="get_time", arguments='{"tz":"UTC"}')),
        finish_reason="tool_calls",
    )
    events = events_of(reply, THINKING)
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert [e["index"] for e in starts] == [0, 1, 2, 3]
    joined: dict[int, str] = {}
    signatures: dict[int, list[str]] = {}
    for event in events:
        if event["type"] != "content_block_delta":
            continue
        delta = event["delta"]
        if delta["type"] == "signature_delta":
            signatures.setdefault(event["index"], []).append(delta["signature"])
            continue
        piece = delta.get("text") or delta.get("thinking") or delta.get("partial_json") or ""
        joined[event["index"]] = joined.get(event["index"], "") + piece
    body = message_body(reply, THINKING)
    assert joined[0] == body["content"][0]["thinking"]
    assert signatures == {0: [body["content"][0]["signature"]]}
    assert joined[1] == "Let me check."
    assert json.loads(joined[2]) == {"city": "Paris"}
    assert json.loads(joined[3]) == {"tz": "UTC"}
    thinking_events = [e for e in events if e.get("index") == 0]
    assert thinking_events[-2]["delta"]["type"] == "signature_delta"  # just before its stop
    assert thinking_events[-1]["type"] == "content_block_stop"


def test_every_frame_has_its_event_line() -> None:
    for event in events_of(text_reply()):
        frame = frame_event(event)
        assert frame.startswith(b"event: " + event["type"].encode() + b"\ndata: ")
        assert frame.endswith(b"\n\n")
    assert frame_event(PING) == b'event: ping\ndata: {"type": "ping"}\n\n'
