"""Record & replay of Responses sockets: ``client.responses.connect()`` through the recording
proxy, whose socket goes on to an upstream's socket (another mockserver on loopback), then
replayed with no upstream at all: exactly (each request's events as they came), or distilled
(a rule per response, which answers ``POST /v1/responses`` too; and the reverse)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from websockets.exceptions import ConnectionClosedError

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.support.events import until_done
from tests.support.recording import WEATHER_TOOL, closed_port, start_recorder

KEY = "sk-socket-recorded-key"
UPSTREAM = """
name: upstream
rules:
  - id: rate
    when: {last_user: {contains: rate}}
    reply: {error: {preset: rate_limited, retry_after: 3}}
  - id: cut
    when: {last_user: {contains: cut}}
    reply: {text: "one two three four five", fault: {disconnect_after: 3}}
  - id: weather
    when: {tools_offered: [get_weather]}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
"""

Flow = Callable[[openai.OpenAI], list[Any]]


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    scenario = tmp_path / "upstream.yaml"
    scenario.write_text(UPSTREAM)
    settings = Settings(port=0, seed=7, clock="frozen", scenario=str(scenario))
    server = BackgroundServer(create_app(settings)).start()
    yield server
    server.stop()


def run(server: BackgroundServer, flow: Flow) -> list[Any]:
    with openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as client:
        return flow(client)


def record(path: Path, upstream: BackgroundServer, flow: Flow, **options: Any) -> list[Any]:
    recorder = start_recorder(path, upstream=upstream.base_url, **options)
    try:
        return run(recorder, flow)
    finally:
        recorder.stop()


def replay(path: Path, flow: Flow, **options: Any) -> list[Any]:
    replayer = start_recorder(path, upstream=None, mode="none", **options)
    try:
        return run(replayer, flow)
    finally:
        replayer.stop()


def dumped(events: list[Any]) -> list[dict[str, Any]]:
    assert events
    return [e.model_dump(mode="json") for e in events]


def tool_loop(client: openai.OpenAI) -> list[Any]:
    """A tool loop continued on the socket (``store: false``), then a 429 on another lane."""
    with client.responses.connect() as connection:
        connection.response.create(
            model="gpt-4o-mini", input="weather in Paris?", tools=[WEATHER_TOOL], store=False
        )
        first = until_done(connection)
        call = next(i for i in first[-1].response.output if i.type == "function_call")
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}
        connection.response.create(
            model="gpt-4o-mini",
            previous_response_id=first[-1].response.id,
            input=[output],
            store=False,
        )
        second = until_done(connection)
        connection.response.create(model="gpt-4o-mini", input="rate me", stream_id="b")
        third = until_done(connection)
    return [dumped(first), dumped(second), dumped(third)]


def test_a_recorded_socket_session_replays_exactly(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "socket.yaml"
    recorded = record(cassette, upstream, tool_loop, form="exact")
    first, second, (error,) = recorded
    assert first[-1]["type"] == second[-1]["type"] == "response.completed"
    assert second[-1]["response"]["previous_response_id"] == first[-1]["response"]["id"]
    assert (error["type"], error["status"], error["stream_id"]) == ("error", 429, "b")
    assert error["error"]["headers"]["retry-after"] == "3"
    assert replay(cassette, tool_loop, form="exact") == recorded


def test_the_key_is_never_written(tmp_path: Path, upstream: BackgroundServer) -> None:
    cassette = tmp_path / "socket.yaml"
    record(cassette, upstream, tool_loop, form="exact")
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "upstream.yaml"]
    assert len(written) == 4  # the scenario and one recording per request
    for path in written:
        assert KEY not in path.read_text(), path
        assert "authorization" not in path.read_text().lower(), path


def one_answer(client: openai.OpenAI) -> list[Any]:
    with client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="Say hello")
        return until_done(connection)


def test_the_recordings_openai_key_goes_on_the_upstreams_socket(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "socket.yaml"
    own = "sk-upstream-openai-key-0001"
    record(cassette, upstream, one_answer, keys={"openai": own, "anthropic": "sk-ant-other-0001"})
    auth = {"Authorization": f"Bearer {own}"}  # its namespace on the upstream
    calls = httpx.get(upstream.url + "/__mockserver/calls", headers=auth).json()["data"]
    assert [call["path"] for call in calls] == ["/v1/responses"]
    for path in cassette.parent.rglob("*"):
        if path.is_file() and path.name != "upstream.yaml":
            assert own not in path.read_text(), path


def test_a_distilled_socket_recording_answers_http_too(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "socket.yaml"
    recorded = record(cassette, upstream, one_answer, form="distilled")[-1].response

    def over_http(client: openai.OpenAI) -> list[Any]:
        plain = client.responses.create(model="gpt-4o-mini", input="Say hello")
        with client.responses.stream(model="gpt-4o-mini", input="Say hello") as stream:
            streamed = stream.get_final_response()
        return [plain, streamed]

    plain, streamed = replay(cassette, over_http, form="distilled")
    assert recorded.output_text
    assert plain.output_text == streamed.output_text == recorded.output_text
    assert plain.usage == recorded.usage


def test_an_http_recording_answers_a_socket(tmp_path: Path, upstream: BackgroundServer) -> None:
    cassette = tmp_path / "http.yaml"

    def over_http(client: openai.OpenAI) -> list[Any]:
        return list(client.responses.create(model="gpt-4o-mini", input="Say hello", stream=True))

    recorded = record(cassette, upstream, over_http, form="exact")
    replayed = replay(cassette, one_answer, form="exact")
    assert [e.model_dump(mode="json", exclude={"stream_id"}) for e in replayed] == dumped(recorded)


def cut(client: openai.OpenAI) -> list[Any]:
    events: list[Any] = []
    with client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="cut me short")
        with pytest.raises(ConnectionClosedError) as closed:
            events.extend(connection)
    assert closed.value.rcvd is not None
    return [closed.value.rcvd.code, [e.type for e in events]]


@pytest.mark.parametrize("form", ["exact", "distilled"])
def test_a_socket_the_upstream_cuts_is_recorded_and_replayed_cut(
    tmp_path: Path, upstream: BackgroundServer, form: str
) -> None:
    cassette = tmp_path / "cut.yaml"
    recorded = record(cassette, upstream, cut, form=form)
    assert recorded == [
        1011,
        ["response.created", "response.in_progress", "response.output_item.added"],
    ]
    assert replay(cassette, cut, form=form) == recorded


def test_an_unreachable_upstream_is_an_error_event(tmp_path: Path) -> None:
    recorder = start_recorder(
        tmp_path / "none.yaml", upstream=f"http://127.0.0.1:{closed_port()}/v1", form="exact"
    )
    try:
        (error,) = run(recorder, one_answer)
    finally:
        recorder.stop()
    assert (error.type, error.status) == ("error", 502)
    assert error.error.code == "upstream_unreachable"
    assert not (tmp_path / "none.yaml").exists()
