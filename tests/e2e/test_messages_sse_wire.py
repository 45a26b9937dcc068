"""Raw bytes of Anthropic streams, as a non-SDK client (curl, a browser, a proxy) sees them:
an ``event:`` line on every frame, the events in the real API's order, compact JSON, and the
ping written as the real API writes it."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer

SCENARIO = """
rules:
  - id: hello
    when: {last_user: {contains: hello}}
    reply: {text: "Hi there."}
  - id: weather
    when: {last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, id: toolu_01Weather, arguments: {city: Oslo}}]}
  - id: think
    when: {last_user: {contains: think}}
    reply: {text: "Yes.", reasoning: {text: "Let me see.", tokens: 12}}
  - id: broken
    when: {last_user: {contains: broken}}
    reply: {text: "One two three four", fault: {error_after: 5, error: {preset: overloaded}}}
"""
WEATHER = {
    "name": "get_weather",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
USAGE = {
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


@pytest.fixture
def http(server: BackgroundServer, api_key: str) -> Any:
    headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
        answer = client.put(
            "/__mockserver/scenario",
            content=SCENARIO,
            headers={"content-type": "application/yaml", "authorization": f"Bearer {api_key}"},
        )
        assert answer.status_code == 200, answer.text
        yield client


def stream(http: httpx.Client, text: str, **extra: Any) -> httpx.Response:
    body = {"model": "claude-sonnet-4-6", "max_tokens": 2048, "stream": True, **extra}
    body["messages"] = [{"role": "user", "content": text}]
    answer = http.post("/v1/messages", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["request-id"].startswith("req_011C")
    return answer


def frame(name: str, payload: Any) -> bytes:
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return f"event: {name}\ndata: {data}\n\n".encode()


PING = b'event: ping\ndata: {"type": "ping"}\n\n'


def start(message_id: str, input_tokens: int) -> bytes:
    usage = {
        "input_tokens": input_tokens,
        **USAGE,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 1,
        "service_tier": "standard",
        "inference_geo": "global",
    }
    message = {
        "model": "claude-sonnet-4-6",
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "stop_details": None,
        "usage": usage,
    }
    return frame("message_start", {"type": "message_start", "message": message})


def block_start(index: int, block: Any) -> bytes:
    payload = {"type": "content_block_start", "index": index, "content_block": block}
    return frame("content_block_start", payload)


def delta(index: int, value: Any) -> bytes:
    return frame(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": value}
    )


def block_stop(index: int) -> bytes:
    return frame("content_block_stop", {"type": "content_block_stop", "index": index})


def end(reason: str, usage: dict[str, Any]) -> bytes:
    payload = {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None, "stop_details": None},
        "usage": usage,
    }
    return frame("message_delta", payload) + frame("message_stop", {"type": "message_stop"})


def message_id(raw: bytes) -> str:
    first = json.loads(raw.split(b"\n\n")[0].split(b"data: ", 1)[1])
    found: str = first["message"]["id"]
    assert found.startswith("msg_01")
    assert len(found) == len("msg_01QCj5VkxPS3NQUtrt5Npjcr")
    return found


def test_a_text_reply_streams_byte_for_byte(http: httpx.Client) -> None:
    raw = stream(http, "hello").content
    expected = b"".join(
        [
            start(message_id(raw), 7),
            block_start(0, {"type": "text", "text": ""}),
            PING,
            delta(0, {"type": "text_delta", "text": "Hi"}),
            delta(0, {"type": "text_delta", "text": " there"}),
            delta(0, {"type": "text_delta", "text": "."}),
            block_stop(0),
            end("end_turn", {"input_tokens": 7, **USAGE, "output_tokens": 3}),
        ]
    )
    assert raw == expected


def test_a_tool_call_streams_its_input_in_fragments(http: httpx.Client) -> None:
    raw = stream(http, "weather?", tools=[WEATHER]).content
    fragments = ["", '{"', "city", '":"', "Oslo", '"}']
    expected = b"".join(
        [
            start(message_id(raw), 25),
            block_start(
                0, {"type": "tool_use", "id": "toolu_01Weather", "name": "get_weather", "input": {}}
            ),
            PING,
            *(delta(0, {"type": "input_json_delta", "partial_json": f}) for f in fragments),
            block_stop(0),
            end("tool_use", {"input_tokens": 25, **USAGE, "output_tokens": 12}),
        ]
    )
    assert raw == expected


def test_thinking_streams_first_and_ends_with_one_signature(http: httpx.Client) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    whole = http.post(
        "/v1/messages",
        json={
            "model": "claude-sonnet-4-6",
            "max_tokens": 2048,
            "thinking": thinking,
            "messages": [{"role": "user", "content": "think"}],
        },
    ).json()
    signature = whole["content"][0]["signature"]
    assert signature
    raw = stream(http, "think", thinking=thinking).content
    usage = {"input_tokens": 7, **USAGE, "output_tokens": 14}
    expected = b"".join(
        [
            start(message_id(raw), 7),
            block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            PING,
            delta(0, {"type": "thinking_delta", "thinking": "Let"}),
            delta(0, {"type": "thinking_delta", "thinking": " me"}),
            delta(0, {"type": "thinking_delta", "thinking": " see"}),
            delta(0, {"type": "thinking_delta", "thinking": "."}),
            delta(0, {"type": "signature_delta", "signature": signature}),
            block_stop(0),
            block_start(1, {"type": "text", "text": ""}),
            delta(1, {"type": "text_delta", "text": "Yes"}),
            delta(1, {"type": "text_delta", "text": "."}),
            block_stop(1),
            end("end_turn", {**usage, "output_tokens_details": {"thinking_tokens": 12}}),
        ]
    )
    assert raw == expected


def test_a_failure_after_the_200_is_an_error_event_with_no_message_stop(
    http: httpx.Client,
) -> None:
    raw = stream(http, "broken").content
    expected = b"".join(
        [
            start(message_id(raw), 7),
            block_start(0, {"type": "text", "text": ""}),
            PING,
            delta(0, {"type": "text_delta", "text": "One"}),
            delta(0, {"type": "text_delta", "text": " two"}),
            frame(
                "error",
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ),
        ]
    )
    assert raw == expected


def test_a_non_streamed_message_is_compact_json(http: httpx.Client) -> None:
    answer = http.post(
        "/v1/messages",
        json={
            "model": "claude-sonnet-4-6",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "hello"}],
        },
    )
    assert answer.headers["content-type"] == "application/json"
    assert answer.content == json.dumps(answer.json(), separators=(",", ":")).encode()
    assert answer.content.startswith(b'{"model":"claude-sonnet-4-6","id":"msg_01')
