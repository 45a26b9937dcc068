"""Ollama's API with the replay lane on and off: the same statuses, headers, bytes, journal and
rule hits (the lane takes a new request through the endpoint's own steps and hands a stream to
the route; Ollama's answers are never replayed from a template), and across two processes
sharing one Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import ollama
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.fleet import Fleet
from tests.support.redis_server import RedisServer

VOLATILE = {"date", "server"}
SCENARIO = """
name: ollama-lane
seed: 5
rules:
  - id: weather
    when: {last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: overloaded}}
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited}
      - text: recovered
"""
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "llama3.2", "messages": [{"role": "user", "content": text}], **extra}


SENDS: list[tuple[str, dict[str, Any]]] = [
    *(("/api/chat", chat("Hello")) for _ in range(3)),
    *(("/api/chat", chat("Hello", stream=False)) for _ in range(3)),
    *(("/api/chat", chat("weather?", tools=[TOOL], stream=False)) for _ in range(2)),
    *(("/api/generate", {"model": "llama3.2", "prompt": "Why?"}) for _ in range(2)),
    ("/api/chat", chat("busy")),
    ("/api/chat", chat("hi", model="nope")),
    ("/api/chat", {"messages": []}),
    ("/api/embed", {"model": "all-minilm", "input": ["a", "b"]}),
]


@pytest.fixture
def lanes() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    on, off = start_server(seed=7), start_server(seed=7, replay=False)
    yield on, off
    on.stop()
    off.stop()


def session(server: BackgroundServer) -> list[Any]:
    seen: list[Any] = []
    control = {"authorization": "Bearer lane-key"}
    with httpx.Client(base_url=server.url, headers=control, timeout=10) as http:
        answer = http.put(
            "/__mockserver/scenario", content=SCENARIO, headers={"content-type": "application/yaml"}
        )
        assert answer.status_code == 200, answer.text
        for path, body in SENDS:
            answer = http.post(path, json=body)
            kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, kept, answer.content))
        calls = http.get("/__mockserver/calls").json()["data"]
        seen.append(http.get("/__mockserver/scenario").json())
    assert calls
    for call in calls:
        assert call.pop("duration_ms") is not None, call
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]
    seen.append(calls)
    return seen


def test_ollama_is_answered_alike_with_the_lane_on_and_off(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    assert session(on) == session(off)
    assert on.app.state.replays.served == 0  # never from a template: each line has its time


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    scenario = tmp_path_factory.mktemp("shared-ollama") / "shared.yaml"
    scenario.write_text(SCENARIO)
    fleet = Fleet(2, state=redis_server.url, prefix=RedisServer.new_prefix(), scenario=scenario)
    fleet.start()
    yield fleet
    fleet.stop()


def test_replies_go_on_across_two_processes_sharing_redis(pair: Fleet, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    ask = [{"role": "user", "content": "flaky?"}]
    with (
        ollama.Client(host=pair[0].url, headers=headers, timeout=20) as first,
        ollama.Client(host=pair[1].url, headers=headers, timeout=20) as second,
    ):
        with pytest.raises(ollama.ResponseError) as caught:
            first.chat(model="llama3.2", messages=ask)
        recovered = second.chat(model="llama3.2", messages=ask)
    assert caught.value.status_code == 429
    assert recovered.message.content == "recovered"
    journal = httpx.get(pair[1].url + "/__mockserver/calls", headers=headers).json()["data"]
    assert [(entry["status"], entry["api"], entry["rule"]) for entry in journal] == [
        (429, "ollama_chat", "flaky"),
        (200, "ollama_chat", "flaky"),
    ]
    assert journal[0]["response"] == {"error": "rate limit exceeded"}
