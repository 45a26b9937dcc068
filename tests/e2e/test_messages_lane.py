"""The replay lane serves Anthropic's Messages as it serves chat: a new request from the
endpoint's own steps, a repeated one from its recipe, with the bytes, headers, journal and rule
hits of the full path (a server with the lane off answers the same requests to compare)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.lanes import TOOL_AND_ERROR

VOLATILE = {"date", "server"}
SCENARIO = TOOL_AND_ERROR
TOOL = {"name": "get_weather", "input_schema": {"type": "object", "properties": {}}}


@pytest.fixture
def lanes() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    on, off = start_server(seed=7), start_server(seed=7, replay=False)
    yield on, off
    on.stop()
    off.stop()


def message(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": text}],
        **extra,
    }


#: Each settled request three times: new (the endpoint's steps), again (a recipe is filed),
#: and a third time (from the recipe).
SETTLED = [
    message("Hello"),
    message("Hello", stream=True),
    message("weather?", tools=[TOOL]),
    message("weather?", tools=[TOOL], stream=True),
    message("Why?", thinking={"type": "enabled", "budget_tokens": 1024}),
    message("Why?", stream=True, thinking={"type": "adaptive"}),
]
SENDS: list[dict[str, Any]] = [
    *(body for body in SETTLED for _ in range(3)),
    message("busy"),
    message("busy", stream=True),
    {"model": "claude-sonnet-4-6", "messages": []},
    message("Hello"),
]


def session(server: BackgroundServer) -> list[Any]:
    seen: list[Any] = []
    headers = {"x-api-key": "sk-ant-lane", "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as http:
        control = {"authorization": "Bearer sk-ant-lane"}
        answer = http.put(
            "/__mockserver/scenario",
            content=SCENARIO,
            headers={**control, "content-type": "application/yaml"},
        )
        assert answer.status_code == 200, answer.text
        for body in SENDS:
            answer = http.post("/v1/messages", json=body)
            kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, kept, answer.content))
        calls = http.get("/__mockserver/calls", headers=control).json()["data"]
        seen.append(http.get("/__mockserver/scenario", headers=control).json())
    assert calls
    for call in calls:
        assert call.pop("duration_ms") is not None, call
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]  # its own port
    seen.append(calls)
    return seen


def test_messages_are_answered_by_the_lane_as_by_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    assert session(on) == session(off)
    served = on.app.state.replays.served
    fresh = on.app.state.lane.fresh_answers
    assert served == len(SETTLED) + 1  # each third time, and the last Hello
    # all else but the two scripted errors (the route sends them) and the refused request
    assert fresh == len(SENDS) - served - 3
    assert off.app.state.replays.served == 0


def test_a_replayed_message_has_its_own_id_and_request_id(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    headers = {"x-api-key": "sk-ant-ids", "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=on.url, headers=headers) as http:
        answers = [http.post("/v1/messages", json=message("Hello")) for _ in range(4)]
    assert on.app.state.replays.served == 2
    ids = [answer.json()["id"] for answer in answers]
    request_ids = [answer.headers["request-id"] for answer in answers]
    assert len(set(ids)) == len(set(request_ids)) == 4
    assert len({answer.json()["content"][0]["text"] for answer in answers}) == 1
    remaining = [int(a.headers["anthropic-ratelimit-requests-remaining"]) for a in answers]
    assert remaining == sorted(remaining, reverse=True)
