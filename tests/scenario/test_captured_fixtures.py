"""A captured answer of the real API pasted in as a ``fixture``: a chat.completion, a
Response, either stream (as SSE text or as its payloads), or a recording file. Each is the
neutral reply it says, and answers both APIs."""

from __future__ import annotations

import json
from pathlib import Path

import openai

from mockserver.scenario.loader import load_file
from tests.conftest import start_server

CHAT_COMPLETION = {
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion",
    "created": 1741569952,
    "model": "gpt-4.1-2025-04-14",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Hello! How can I assist you today?",
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {
        "prompt_tokens": 19,
        "completion_tokens": 10,
        "total_tokens": 29,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    },
    "service_tier": "default",
}

RESPONSE = {
    "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
    "object": "response",
    "created_at": 1741476542,
    "status": "completed",
    "model": "gpt-4.1-2025-04-14",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "The user wants the weather."}],
        },
        {
            "type": "function_call",
            "id": "fc_67ca09c6bedc8190a7abfec07b1a1332",
            "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
    ],
    "usage": {
        "input_tokens": 291,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 23,
        "output_tokens_details": {"reasoning_tokens": 7},
        "total_tokens": 314,
    },
}

CHAT_STREAM = (
    "".join(
        "data: "
        + json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )
        + "\n\n"
        for delta, finish in (
            ({"role": "assistant", "content": ""}, None),
            ({"content": "Bonjour"}, None),
            ({"content": " tout le monde"}, None),
            ({}, "stop"),
        )
    )
    + "data: [DONE]\n\n"
)

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def scenario_with(tmp_path: Path, fixture: str, content: str) -> Path:
    (tmp_path / fixture).write_text(content)
    path = tmp_path / "pasted.yaml"
    path.write_text(f"rules:\n  - reply: {{fixture: {fixture}}}\n")
    return path


def test_a_pasted_chat_completion_is_the_reply_it_says(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, "captured.json", json.dumps(CHAT_COMPLETION, indent=2))
    [rule] = load_file(path).rules
    assert rule.reply is not None
    assert rule.reply.text == "Hello! How can I assist you today?"
    assert rule.reply.usage == {
        "prompt_tokens": 19,
        "completion_tokens": 10,
        "reasoning_tokens": 0,
        "cached_tokens": 0,
    }


def test_a_pasted_chat_completion_answers_both_apis(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, "captured.json", json.dumps(CHAT_COMPLETION))
    server = start_server(scenario=str(path))
    try:
        with openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0) as client:
            chat = client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]
            )
            response = client.responses.create(model="gpt-4.1", input="hi")
    finally:
        server.stop()
    assert chat.choices[0].message.content == "Hello! How can I assist you today?"
    assert response.output_text == "Hello! How can I assist you today?"
    assert chat.usage is not None
    assert (chat.usage.prompt_tokens, chat.usage.completion_tokens) == (19, 10)


def test_a_pasted_response_gives_its_tool_call_and_reasoning(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, "response.json", json.dumps(RESPONSE))
    [rule] = load_file(path).rules
    assert rule.reply is not None
    [call] = rule.reply.tool_calls or []
    assert (call.name, call.arguments, call.id) == (
        "get_weather",
        '{"city":"Paris"}',
        "call_unLAR8MvFNptuiZK6K6HCy5k",
    )
    assert rule.reply.reasoning is not None
    assert rule.reply.reasoning.summary == ["The user wants the weather."]
    server = start_server(scenario=str(path))
    try:
        with openai.OpenAI(base_url=server.base_url, api_key="sk-x", max_retries=0) as client:
            chat = client.chat.completions.create(
                model="gpt-4.1",
                messages=[{"role": "user", "content": "weather?"}],
                tools=[WEATHER],  # type: ignore[list-item]
            )
    finally:
        server.stop()
    [made] = chat.choices[0].message.tool_calls or []
    assert made.id == "call_unLAR8MvFNptuiZK6K6HCy5k"
    assert made.function.arguments == '{"city":"Paris"}'  # type: ignore[union-attr]


def test_a_pasted_sse_stream_is_the_text_its_deltas_spell(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, "stream.txt", CHAT_STREAM)
    [rule] = load_file(path).rules
    assert rule.reply is not None
    assert rule.reply.text == "Bonjour tout le monde"


def test_a_pasted_responses_stream_is_the_response_it_completes(tmp_path: Path) -> None:
    events = [
        {"type": "response.created", "sequence_number": 0, "response": {**RESPONSE, "output": []}},
        {"type": "response.completed", "sequence_number": 1, "response": RESPONSE},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    path = scenario_with(tmp_path, "events.sse", text)
    [rule] = load_file(path).rules
    assert rule.reply is not None
    assert [c.name for c in rule.reply.tool_calls or []] == ["get_weather"]


def test_a_list_of_stream_payloads_is_accepted_too(tmp_path: Path) -> None:
    payloads = [json.loads(line[6:]) for line in CHAT_STREAM.split("\n\n")[:-2]]
    path = scenario_with(tmp_path, "chunks.json", json.dumps(payloads))
    [rule] = load_file(path).rules
    assert rule.reply is not None
    assert rule.reply.text == "Bonjour tout le monde"


def test_a_recorded_error_used_as_a_fixture_is_that_error(tmp_path: Path) -> None:
    recording = {
        "status": 429,
        "headers": {"retry-after": "2", "x-ratelimit-remaining-requests": "0"},
        "body": json.dumps(
            {"error": {"message": "Slow down", "type": "requests", "code": "rate_limit_exceeded"}}
        ),
    }
    path = scenario_with(tmp_path, "limited.json", json.dumps(recording))
    [rule] = load_file(path).rules
    assert rule.reply is not None
    error = rule.reply.error
    assert error is not None
    assert (error.status, error.code, error.message, error.retry_after) == (
        429,
        "rate_limit_exceeded",
        "Slow down",
        2.0,
    )
    assert error.headers == {"x-ratelimit-remaining-requests": "0"}
