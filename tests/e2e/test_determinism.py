"""Same seed + same requests ⇒ byte-identical bodies and streams, across server instances."""

from __future__ import annotations

import httpx

from tests.conftest import start_server

REQUESTS = [
    {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Tell me about Boston"}]},
    {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Tell me about Boston"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    },
    {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
            }
        ],
        "stream": True,
    },
    {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Hi"}],
        "logprobs": True,
        "top_logprobs": 2,
        "store": True,
    },
]


def _run(seed: int) -> list[tuple[int, bytes, str]]:
    server = start_server(seed=seed)
    try:
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": "Bearer sk-determinism"}
        ) as client:
            out = []
            for body in REQUESTS:
                response = client.post("/chat/completions", json=body)
                out.append(
                    (response.status_code, response.content, response.headers["x-request-id"])
                )
            return out
    finally:
        server.stop()


def test_two_servers_with_the_same_seed_answer_identical_bytes() -> None:
    assert _run(seed=7) == _run(seed=7)


def test_a_different_server_seed_changes_the_content() -> None:
    assert _run(seed=7)[0][1] != _run(seed=8)[0][1]


MESSAGES = [
    {"max_tokens": 300, "messages": [{"role": "user", "content": "Tell me about Boston"}]},
    {
        "max_tokens": 300,
        "stream": True,
        "messages": [{"role": "user", "content": "Tell me about Boston"}],
    },
    {
        "max_tokens": 3000,
        "stream": True,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": [
            {
                "name": "get_weather",
                "input_schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            }
        ],
        "messages": [{"role": "user", "content": "Weather?"}],
    },
    {"max_tokens": 5, "messages": [{"role": "user", "content": "Hi"}], "stop_sequences": ["x"]},
    {"messages": [{"role": "user", "content": "Hi"}]},  # refused: no max_tokens
]


def _run_messages(seed: int) -> list[tuple[int, bytes, str]]:
    server = start_server(seed=seed)
    try:
        with httpx.Client(
            base_url=server.url,
            headers={"x-api-key": "sk-ant-determinism", "anthropic-version": "2023-06-01"},
        ) as client:
            out = []
            for body in MESSAGES:
                response = client.post("/v1/messages", json={"model": "claude-opus-4-6", **body})
                out.append((response.status_code, response.content, response.headers["request-id"]))
            return out
    finally:
        server.stop()


def test_anthropic_messages_are_byte_identical_across_servers_with_one_seed() -> None:
    first = _run_messages(seed=7)
    assert [status for status, _, _ in first] == [200, 200, 200, 200, 400]
    assert first == _run_messages(seed=7)
    assert first[0][1] != _run_messages(seed=8)[0][1]
