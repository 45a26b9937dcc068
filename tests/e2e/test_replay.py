"""The replay lane: identical requests answered again from a template, byte for byte as the
full path would answer them, and never when the namespace's state says otherwise."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.lane.recipes import Replays
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

HELLO = [{"role": "user", "content": "Hello there"}]
WEATHER_TOOL = {
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
BODIES: list[dict[str, Any]] = [
    {"model": "gpt-4o-mini", "messages": HELLO},
    {"model": "gpt-4o-mini", "messages": HELLO, "stream": True},
    {
        "model": "gpt-4o-mini",
        "messages": HELLO,
        "stream": True,
        "stream_options": {"include_usage": True, "include_obfuscation": False},
    },
    {"model": "gpt-4o-mini", "messages": HELLO, "logprobs": True, "top_logprobs": 2},
    {"model": "gpt-4o-mini", "messages": HELLO, "tools": [WEATHER_TOOL], "stream": True},
]
#: Headers that differ between two servers for reasons other than the answer.
VOLATILE = {"date", "server"}


def replays(server: BackgroundServer) -> Replays:
    found: Replays = server.app.state.replays
    return found


@pytest.fixture
def lanes() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    """Two servers with the same seed: the replay lane on, and off."""
    on, off = start_server(seed=99), start_server(seed=99, replay=False)
    yield on, off
    on.stop()
    off.stop()


def use(http: httpx.Client, yaml_text: str) -> None:
    answer = http.put(
        "/__mockserver/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200, answer.text


def exchange(
    server: BackgroundServer, bodies: list[dict[str, Any]], scenario: str | None = None
) -> list[Any]:
    seen: list[Any] = []
    with httpx.Client(base_url=server.url, headers={"Authorization": "Bearer sk-replay"}) as http:
        if scenario is not None:
            use(http, scenario)
        for body in bodies:
            answer = http.post("/v1/chat/completions", json=body)
            headers = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, headers, answer.content))
        calls = http.get("/__mockserver/calls").json()["data"]
    for call in calls:
        call.pop("duration_ms")
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]  # its own port
    seen.append(calls)
    return seen


SCRIPTED = """
rules:
  - id: never
    when: {last_user: {contains: nothing of the sort}}
    reply: {text: unreachable}
  - id: tools
    when: {tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Oslo}}]}
"""


@pytest.mark.parametrize("scenario", [None, SCRIPTED], ids=["generated", "scripted"])
def test_replayed_answers_and_journal_are_those_of_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer], scenario: str | None
) -> None:
    on, off = lanes
    bodies = [body for body in BODIES for _ in range(4)]  # seen, filed, replayed, replayed
    assert exchange(on, bodies, scenario) == exchange(off, bodies, scenario)
    assert replays(on).served == 2 * len(BODIES)
    assert replays(off).served == 0


def test_each_replayed_request_gets_its_own_id_and_request_id(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    with httpx.Client(base_url=on.base_url, headers={"Authorization": "Bearer sk-ids"}) as http:
        answers = [http.post("/chat/completions", json=BODIES[0]) for _ in range(4)]
    assert replays(on).served == 2
    assert len({a.json()["id"] for a in answers}) == 4
    assert len({a.headers["x-request-id"] for a in answers}) == 4
    assert len({a.json()["choices"][0]["message"]["content"] for a in answers}) == 1
    remaining = [a.headers["x-ratelimit-remaining-requests"] for a in answers]
    assert remaining == sorted(remaining, reverse=True)
    assert len(set(remaining)) == 4


def ask(http: httpx.Client) -> str:
    answer = http.post("/v1/chat/completions", json={"model": "m", "messages": HELLO})
    assert answer.status_code == 200, answer.text
    content: str = answer.json()["choices"][0]["message"]["content"]
    return content


def test_state_changes_are_seen_by_the_next_identical_request(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    with httpx.Client(base_url=on.url, headers={"Authorization": "Bearer sk-state"}) as http:
        generated = ask(http)
        assert ask(http) == ask(http) == generated  # asked once, filed, replayed
        assert replays(on).served == 1
        http.post("/__mockserver/next", json={"text": "one-off"})
        assert ask(http) == "one-off"
        assert ask(http) == generated
        scripted = "rules:\n  - when: {last_user: {contains: Hello}}\n    reply: {text: scripted}\n"
        use(http, scripted)
        assert [ask(http) for _ in range(3)] == ["scripted"] * 3
        rules = http.get("/__mockserver/scenario").json()["rules"]
        assert rules[0]["hits"] == 3  # replayed hits count like any other
        once = (
            "rules:\n  - when: {last_user: {contains: Hello}}\n    times: 1\n"
            "    reply: {text: once}\n"
        )
        use(http, once)
        assert ask(http) == "once"
        assert ask(http) == generated  # used up: the fallback answers, never a stale replay
        http.post("/__mockserver/reset")
        assert ask(http) == generated
    assert replays(on).served == 3  # the 2nd generated, the 2nd and 3rd scripted


def test_a_chaos_scenario_is_never_replayed(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    chaos = "chaos: {probability: 0.5, replies: [{error: {preset: overloaded}}]}\nrules: []\n"
    with httpx.Client(base_url=on.url, headers={"Authorization": "Bearer sk-chaos"}) as http:
        use(http, chaos)
        statuses = [
            http.post("/v1/chat/completions", json={"model": "m", "messages": HELLO}).status_code
            for _ in range(12)
        ]
    assert set(statuses) == {200, 503}
    assert replays(on).served == 0


RESPONSES: list[dict[str, Any]] = [
    {"model": "gpt-4o-mini", "input": "Hello there"},
    {"model": "gpt-4o-mini", "input": "Hello there", "stream": True, "max_output_tokens": 16},
    {"model": "gpt-4o-mini", "input": [{"role": "user", "content": "Hi"}], "store": False},
    {
        "model": "gpt-4o-mini",
        "input": "Weather?",
        "tools": [{"type": "function", **WEATHER_TOOL["function"]}],
        "stream": True,
    },
]


def responses_exchange(server: BackgroundServer) -> list[Any]:
    """Each Responses body three times, then every stored response retrieved with its input
    items: what a replay stores must be what the full path stores."""
    seen: list[Any] = []
    with httpx.Client(base_url=server.base_url, headers={"Authorization": "Bearer sk-r"}) as http:
        ids = []
        for body in [b for b in RESPONSES for _ in range(4)]:
            answer = http.post("/responses", json=body)
            headers = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, headers, answer.content))
            if body.get("store") is not False:
                ids.append(_response_id(answer))
        for response_id in ids:
            seen.append(http.get(f"/responses/{response_id}").content)
            seen.append(http.get(f"/responses/{response_id}/input_items").content)
        seen.append(http.get(f"/responses/{ids[-1]}", params={"stream": "true"}).content)
    return seen


def _response_id(answer: httpx.Response) -> str:
    """A response's id, from its body or its stream's first event."""
    if not answer.headers["content-type"].startswith("text/event-stream"):
        return str(answer.json()["id"])
    first = next(line for line in answer.text.splitlines() if line.startswith("data: "))
    return str(json.loads(first.removeprefix("data: "))["response"]["id"])


def test_replayed_responses_are_answered_and_stored_as_by_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    assert responses_exchange(on) == responses_exchange(off)
    assert replays(on).served == 2 * len(RESPONSES)


def test_a_request_asked_once_costs_no_template(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    with httpx.Client(base_url=on.base_url, headers={"Authorization": "Bearer sk-1"}) as http:
        for n in range(5):
            http.post(
                "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": f"#{n}"}]},
            )
    assert len(replays(on)) == 0


def test_a_cross_origin_request_goes_through_access_and_gets_cors_headers(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    answers = []
    for server in (on, off):
        with httpx.Client(
            base_url=server.base_url,
            headers={"Authorization": "Bearer sk-o", "Origin": "http://localhost:5173"},
        ) as http:
            answers.append([http.post("/chat/completions", json=BODIES[0]) for _ in range(4)])
    assert [a.content for a in answers[0]] == [a.content for a in answers[1]]
    allowed = {a.headers.get("access-control-allow-origin") for a in answers[0]}
    assert allowed == {"*"}  # the default policy: any origin, no credentials
    assert replays(on).served == 0  # CORS is Access's: the lane leaves such requests to it


def test_a_response_that_continues_another_is_not_replayed(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, _ = lanes
    with httpx.Client(base_url=on.base_url, headers={"Authorization": "Bearer sk-c"}) as http:
        first = http.post("/responses", json={"model": "m", "input": "Hi"}).json()["id"]
        follow = {"model": "m", "input": "And then?", "previous_response_id": first}
        answers = [http.post("/responses", json=follow).json() for _ in range(3)]
    assert [a["previous_response_id"] for a in answers] == [first] * 3
    assert replays(on).served == 0


def test_the_asgi_lane_answers_in_process_as_the_full_path_does() -> None:
    """Without a socket (ASGI in-process), the middleware lane answers; same bytes again."""
    from starlette.testclient import TestClient

    from mockserver.http.app import create_app
    from mockserver.settings import Settings

    seen = []
    for lane in (True, False):
        app = create_app(Settings(seed=3, clock="frozen", replay=lane))
        with TestClient(app, headers={"Authorization": "Bearer sk-asgi"}) as http:
            answers = [
                http.post(path, json=body)
                for path, body in [
                    ("/v1/chat/completions", BODIES[0]),
                    ("/v1/chat/completions", BODIES[1]),
                    ("/v1/responses", RESPONSES[1]),
                ]
                for _ in range(4)
            ]
        seen.append([(a.status_code, a.headers.multi_items(), a.content) for a in answers])
        assert app.state.replays.served == (6 if lane else 0)
    assert seen[0] == seen[1]
