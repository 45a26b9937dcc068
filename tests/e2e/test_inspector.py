"""The inspector's page, its event stream and the control endpoints it uses, over real HTTP."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.http.routes.labels import handle
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

ROOT = Path(__file__).resolve().parents[2]
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    server = start_server(seed=5)  # its own: the event stream sees every namespace
    yield server
    server.stop()


def chat(server: BackgroundServer, key: str, **extra: Any) -> httpx.Response:
    return httpx.post(
        server.base_url + "/chat/completions",
        json={**CHAT, **extra},
        headers={"authorization": f"Bearer {key}"},
    )


def events(lines: Iterator[str], count: int) -> list[tuple[str, Any]]:
    """The next ``count`` events of a ``text/event-stream``'s lines, as (event name, data)."""
    found: list[tuple[str, Any]] = []
    name = "message"
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            found.append((name, json.loads(line.removeprefix("data: "))))
            if len(found) == count:
                break
    return found


def test_the_page_is_self_contained(server: BackgroundServer) -> None:
    page = httpx.get(server.url + "/__mockserver/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    # Only our own files: nothing to fetch from the internet, so it works offline.
    assert re.findall(r'(?:src|href)="([^"]+)"', page.text) == [
        "data:,",
        "/__mockserver/inspector.css",
        "/__mockserver/readers.js",
        "/__mockserver/call.js",
        "/__mockserver/inspector.js",
    ]
    assert '<option value="plain-chat">' in page.text  # the library, rendered by the server
    assert '<option value="rate_limited" selected>' in page.text
    script = httpx.get(server.url + "/__mockserver/inspector.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "innerHTML" not in script.text  # server values are only ever set as text
    call = httpx.get(server.url + "/__mockserver/call.js")
    readers = httpx.get(server.url + "/__mockserver/readers.js")
    for scripted in (call, readers):
        assert scripted.headers["content-type"].startswith("text/javascript")
        assert "innerHTML" not in scripted.text
    style = httpx.get(server.url + "/__mockserver/inspector.css")
    assert style.headers["content-type"].startswith("text/css")
    sizes = [len(r.content) for r in (page, script, call, readers, style)]
    assert sum(sizes) < 100_000


def test_the_page_ships_in_the_package() -> None:
    folder = files("mockserver.http.inspector")
    names = {"page.html", "inspector.js", "readers.js", "call.js", "inspector.css"}
    assert all(folder.joinpath(name).is_file() for name in names)
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "mockserver.http.inspector" in setuptools["packages"]
    assert names <= set(setuptools["package-data"]["mockserver.http.inspector"])


def test_the_event_stream_sends_a_snapshot_then_each_call(mock: BackgroundServer) -> None:
    chat(mock, "sk-early")
    with (
        httpx.Client(timeout=5) as client,
        client.stream("GET", mock.url + "/__mockserver/events") as stream,
    ):
        lines = stream.iter_lines()
        assert stream.headers["content-type"].startswith("text/event-stream")
        [(name, snapshot)] = events(lines, 1)
        assert name == "snapshot"
        assert [(c["namespace"], c["label"], c["seq"]) for c in snapshot["calls"]] == [
            (handle("sk-early"), "sk-…", 1)
        ]
        chat(mock, "sk-late", stream=True)
        arrived = events(lines, 1)
    [(name, call)] = arrived
    assert name == "call"
    assert call["namespace"] == handle("sk-late")  # the feed never shows a key
    assert call["path"] == "/v1/chat/completions"
    assert (call["model"], call["stream"], call["status"]) == ("gpt-4o-mini", True, 200)
    assert "request" not in call
    assert "response" not in call


def test_the_event_stream_announces_scenario_switches_and_resets(mock: BackgroundServer) -> None:
    control = mock.url + "/__mockserver"
    with (
        httpx.Client(timeout=5) as client,
        client.stream("GET", control + "/events") as stream,
    ):
        lines = stream.iter_lines()
        events(lines, 1)
        httpx.put(control + "/scenario?namespace=sk-a", json={"name": "plain-chat"})
        httpx.post(control + "/next?namespace=sk-a", json={"error": {"preset": "overloaded"}})
        httpx.post(control + "/reset?namespace=sk-a")
        seen = events(lines, 3)
    assert [name for name, _ in seen] == ["state", "state", "reset"]
    assert {data["namespace"] for _, data in seen} == {handle("sk-a")}


def test_a_namespace_filter_narrows_the_stream(mock: BackgroundServer) -> None:
    chat(mock, "sk-other")
    chat(mock, "sk-mine")
    with (
        httpx.Client(timeout=5) as client,
        client.stream("GET", mock.url + "/__mockserver/events?namespace=sk-mine") as stream,
    ):
        lines = stream.iter_lines()
        [(_, snapshot)] = events(lines, 1)
        chat(mock, "sk-other")
        chat(mock, "sk-mine")
        [(_, call)] = events(lines, 1)
    assert [c["namespace"] for c in snapshot["calls"]] == [handle("sk-mine")]
    assert (call["namespace"], call["seq"]) == (handle("sk-mine"), 2)


def test_one_call_in_full_with_its_timing(mock: BackgroundServer) -> None:
    chat(mock, "sk-detail", stream=True)
    call = httpx.get(mock.url + "/__mockserver/calls/1?namespace=sk-detail").json()
    assert call["namespace"] == "sk-detail"
    assert call["request"]["messages"] == CHAT["messages"]
    assert call["response"][0]["object"] == "chat.completion.chunk"
    assert call["duration_ms"] > 0
    assert call["timing"]
    assert call["timing"][-1] <= call["duration_ms"]
    gone = httpx.get(mock.url + "/__mockserver/calls/9?namespace=sk-detail")
    assert gone.status_code == 404
    assert gone.json()["error"]["message"] == "No call #9 in the journal of namespace 'sk-detail'."


def test_namespaces_list_their_scenario_and_calls(mock: BackgroundServer) -> None:
    chat(mock, "sk-one")
    chat(mock, "sk-two")
    chat(mock, "sk-two")
    httpx.put(mock.url + "/__mockserver/scenario?namespace=sk-two", json={"name": "plain-chat"})
    listed = httpx.get(mock.url + "/__mockserver/namespaces").json()["data"]
    assert [(n["namespace"], n["label"], n["scenario"], n["calls"]) for n in listed] == [
        (handle("sk-two"), "sk-…", "plain-chat", 2),
        (handle("sk-one"), "sk-…", "default", 1),
    ]


def test_calls_filter_by_namespace_path_and_status(mock: BackgroundServer) -> None:
    chat(mock, "sk-f")
    httpx.post(
        mock.url + "/__mockserver/next?namespace=sk-f", json={"error": {"preset": "overloaded"}}
    )
    chat(mock, "sk-f")
    httpx.get(mock.base_url + "/models", headers={"authorization": "Bearer sk-f"})
    calls = mock.url + "/__mockserver/calls"
    everything = httpx.get(calls, params={"namespace": "sk-f"}).json()["data"]
    assert [(c["method"], c["status"]) for c in everything] == [
        ("POST", 200),
        ("POST", 503),
        ("GET", 200),
    ]
    assert everything[-1]["summary"] == f"list of {len(everything[-1]['response']['data'])}"
    failed = httpx.get(calls, params={"namespace": "sk-f", "status": "503"}).json()["data"]
    assert [c["rule"] for c in failed] == ["(one-off)"]
    by_path = httpx.get(calls, params={"namespace": "sk-f", "path": "/v1/chat/completions"})
    assert len(by_path.json()["data"]) == 2
    assert httpx.get(calls, params={"namespace": "sk-nobody"}).json()["data"] == []


@pytest.mark.parametrize(
    ("path", "body", "headers"),
    [
        (
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent",  # a streamed JSON array
            {"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]},
            {"x-goog-api-key": "sk-timed"},
        ),
        (
            "/api/chat",  # Ollama's NDJSON
            {"model": "llama3.2", "messages": [{"role": "user", "content": "Hello"}]},
            {"authorization": "Bearer sk-timed"},
        ),
        (
            "/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream",  # AWS event stream
            {"messages": [{"role": "user", "content": [{"text": "Hello"}]}]},
            {"authorization": "Bearer sk-timed"},
        ),
    ],
)
def test_every_familys_stream_is_timed_write_by_write(
    mock: BackgroundServer, path: str, body: dict[str, object], headers: dict[str, str]
) -> None:
    scenario = {"scenario": {"latency": {"ttft": 0.01, "chunk_interval": 0.002}}}
    control = {"authorization": "Bearer sk-timed"}
    httpx.put(
        mock.url + "/__mockserver/scenario", json=scenario, headers=control
    ).raise_for_status()
    answer = httpx.post(mock.url + path, json=body, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    call = httpx.get(mock.url + "/__mockserver/calls/1?namespace=sk-timed").json()
    assert call["stream"] is True
    assert len(call["response"]) > 2
    assert len(call["timing"]) >= len(call["response"])  # a time for each event's write
    assert call["timing"] == sorted(call["timing"])
