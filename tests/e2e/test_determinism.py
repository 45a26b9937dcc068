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
