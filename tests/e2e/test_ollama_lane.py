"""Ollama's API with the replay lane on and off: the same statuses, headers, bytes, journal and
rule hits (the lane takes a new request through the endpoint's own steps and a repeated one
from its recipe, each line's ``created_at`` from the namespace's clock), and across two
processes sharing one Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import ollama
import pytest

from tests.support.fleet import Fleet
from tests.support.lanes import Send, lane_pair, lane_session, served_by_lane
from tests.support.redis_server import RedisServer

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


def generate(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "llama3.2", "prompt": text, **extra}


#: Each request three times: new (the endpoint's steps), again (a recipe is filed), and a third
#: time (from the recipe), the namespace's clock moved on by a fraction of a second before it.
THRICE = [
    Send("/api/chat", chat("Hello")),
    Send("/api/chat", chat("Hello", stream=False)),
    Send("/api/chat", chat("weather?", tools=[TOOL])),
    Send("/api/chat", chat("weather?", tools=[TOOL], stream=False)),
    Send("/api/chat", chat("Why?", think=True)),
    Send("/api/generate", generate("Why?")),
    Send("/api/generate", generate("Why?", stream=False)),
    Send("/api/generate", generate("Why?", raw=True, options={"num_predict": 5})),
    Send("/api/chat", {"model": "llama3.2", "messages": []}),  # loads the model
]
SENDS = [
    *(send._replace(advance=0.25 * n) for send in THRICE for n in range(3)),
    Send("/api/chat", chat("busy")),
    Send("/api/chat", chat("busy", stream=False)),
    Send("/api/chat", chat("hi", model="nope")),
    Send("/api/chat", {"messages": []}),
    Send("/api/embed", {"model": "all-minilm", "input": ["a", "b"]}),
    Send("/api/chat", chat("Hello", stream=False)),
]


def test_ollama_is_answered_alike_with_the_lane_on_and_off() -> None:
    with lane_pair() as (on, off):
        control = {"authorization": "Bearer lane-key"}
        seen = lane_session(on, SENDS, key="lane-key", scenario=SCENARIO, headers=control)
        assert seen == lane_session(off, SENDS, key="lane-key", scenario=SCENARIO, headers=control)
        served, fresh = served_by_lane(on)
        assert served == len(THRICE) + 1  # each third time, and the last Hello
        # all else but the scripted errors (the route sends them), the refused requests (an
        # unknown model's 404 is the turn's, no model a 400 before it) and the embedding
        assert fresh == len(SENDS) - served - 5
        assert served_by_lane(off) == (0, 0)
    times = [orjson_lines(body) for _, _, body in seen[:3]]
    assert times[0] != times[2]  # each line's time moved with the clock


def orjson_lines(stream: bytes) -> list[str]:
    """The ``created_at`` of each line of an NDJSON stream."""
    import orjson

    lines = [orjson.loads(text) for text in stream.splitlines() if text]
    assert lines
    return [value["created_at"] for value in lines]


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
