"""The Responses API's WebSocket mode, driven by openai-python's ``client.responses.connect()``
(sync and async) against a real server: create, a tool loop on one socket, lanes, steering, a
scripted error, an in-stream error, a cut, and chains that go on over HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from websockets.exceptions import ConnectionClosedError

from mockserver.http.server import BackgroundServer
from tests.support.events import TERMINAL, assert_well_formed, until_done

TEXT = "One two three four five six seven eight nine ten."
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


def script(control: httpx.Client, **reply: Any) -> None:
    assert control.post("/next", json=reply).status_code == 200


def dumped(events: list[Any]) -> list[dict[str, Any]]:
    """The events as the SSE stream has them (their lane left out)."""
    payloads = [e.model_dump(mode="json", exclude_unset=True) for e in events]
    for payload in payloads:
        payload.pop("stream_id", None)
    return payloads


@pytest.fixture
def sync_client(server: BackgroundServer, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0)


def test_a_response_over_the_socket_is_the_stream_of_events(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    script(control, text=TEXT)
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="Tell me a story")
        events = until_done(connection)
    assert [e.type for e in events][:2] == ["response.created", "response.in_progress"]
    final = assert_well_formed(dumped(events))
    assert final.output_text == TEXT
    assert all(e.stream_id is None for e in events)


def test_a_tool_loop_runs_on_one_socket(
    sync_client: openai.OpenAI, control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])
    script(control, text="It is 21 degrees in Paris.")
    with sync_client.responses.connect() as connection:
        connection.response.create(
            model="gpt-4o-mini", input="Weather in Paris?", tools=[WEATHER], store=False
        )
        first = until_done(connection)[-1].response
        (call,) = [item for item in first.output if item.type == "function_call"]
        assert (call.name, call.arguments) == ("get_weather", '{"city":"Paris"}')
        # store: false, yet the socket remembers its latest response for what continues it
        connection.response.create(
            model="gpt-4o-mini",
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "21C"}],
            tools=[WEATHER],
            store=False,
        )
        second = until_done(connection)[-1]
    assert second.type == "response.completed"
    assert second.response.output_text == "It is 21 degrees in Paris."
    assert second.response.previous_response_id == first.id
    with pytest.raises(openai.NotFoundError):  # not stored: only the socket knew it
        client.responses.retrieve(first.id)


def test_requests_on_two_lanes_are_answered_each_in_order(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    with sync_client.responses.connect() as connection:
        for lane in ("agent_1", "agent_2"):
            for n in range(2):
                connection.response.create(
                    model="gpt-4o-mini", input=f"{lane} question {n}", stream_id=lane
                )
        finished: dict[str, list[str]] = {"agent_1": [], "agent_2": []}
        seen: dict[str, list[Any]] = {"agent_1": [], "agent_2": []}
        for event in connection:
            assert event.stream_id in finished
            seen[event.stream_id].append(event)
            if event.type == "response.completed":
                finished[event.stream_id].append(event.response.id)
            if sum(map(len, finished.values())) == 4:
                break
    for lane, events in seen.items():
        assert len(finished[lane]) == 2
        # one response after the other on a lane: each its whole stream, numbered from 0
        created = [i for i, e in enumerate(events) if e.type == "response.created"]
        assert len(created) == 2
        assert created[0] == 0
        for stream in (events[: created[1]], events[created[1] :]):
            assert [e.sequence_number for e in stream] == list(range(len(stream)))
            assert_well_formed(dumped(stream))


def test_steered_input_continues_the_response_in_a_successor(
    sync_client: openai.OpenAI, control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, text=TEXT, latency={"chunk_interval": 0.05, "chunk": "word"})
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="Tell me a story", stream_id="s")
        created = connection.recv()
        assert created.type == "response.created"
        first_id = created.response.id
        connection.response.steer(input="Make it shorter.", previous_response_id=first_id)
        events = until_done(connection)
        accepted = [e for e in events if e.type == "response.steer.accepted"]
        assert len(accepted) == 1
        assert accepted[0].steer.previous_response_id == first_id
        assert accepted[0].stream_id == "s"
        assert events[-1].type == "response.completed"  # the response ends as it would have
        successor = until_done(connection)
    assert successor[0].type == "response.created"
    assert successor[-1].type == "response.completed"
    assert successor[-1].response.previous_response_id == first_id
    items = client.responses.input_items.list(successor[-1].response.id, order="asc").data
    assert [i.content[0].text for i in items if i.type == "message"] == ["Make it shorter."]


def test_steering_a_response_the_socket_never_streamed_fails(
    sync_client: openai.OpenAI,
) -> None:
    with sync_client.responses.connect() as connection:
        connection.response.steer(input="Hello?", previous_response_id="resp_unknown")
        failed = connection.recv()
    assert failed.type == "response.steer.failed"
    assert failed.error.code == "response_not_found"
    assert failed.steer.id is None
    assert failed.steer.input == "Hello?"


def test_a_scripted_error_is_an_error_event_and_the_socket_stays_open(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    script(control, error={"preset": "rate_limited", "retry_after": 2})
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="hi", stream_id="l1")
        (error,) = until_done(connection)
        assert error.type == "error"
        assert error.status == 429
        assert error.stream_id == "l1"
        assert (error.error.type, error.error.code) == ("rate_limit_error", "slow_down")
        assert error.error.headers is not None
        assert error.error.headers["retry-after"] == "2"
        connection.response.create(model="gpt-4o-mini", input="hi again", stream_id="l1")
        assert until_done(connection)[-1].type == "response.completed"


def test_a_spent_rate_limit_is_a_429_error_event_with_the_https_headers(
    sync_client: openai.OpenAI, control: httpx.Client, client: openai.OpenAI
) -> None:
    control.put("/scenario", json={"scenario": {"rate_limits": {"requests_per_minute": 1}}})
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="one", stream_id="l")
        assert until_done(connection)[-1].type == "response.completed"
        connection.response.create(model="gpt-4o-mini", input="two", stream_id="l")
        (limited,) = until_done(connection)
        assert control.post("/clock", json={"advance": 60}).status_code == 200
        connection.response.create(model="gpt-4o-mini", input="three", stream_id="l")
        assert until_done(connection)[-1].type == "response.completed"  # the socket stayed open
    with pytest.raises(openai.RateLimitError) as over_http:  # the budget spent again
        client.responses.create(model="gpt-4o-mini", input="four")
    assert (limited.type, limited.status, limited.stream_id) == ("error", 429, "l")
    details = limited.error.model_dump(exclude_none=True)
    headers = details.pop("headers")
    assert details == {k: v for k, v in over_http.value.body.items() if v is not None}  # type: ignore[union-attr]
    assert details["code"] == "rate_limit_exceeded"
    sent = over_http.value.response.headers
    assert headers["retry-after"] == sent["retry-after"]
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert headers.keys() == {k for k in sent if k.startswith(("retry-after", "x-ratelimit-"))}


def test_a_refused_request_is_an_error_event_in_the_http_answers_words(
    sync_client: openai.OpenAI, client: openai.OpenAI
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.create(model="gpt-4o-mini", input="hi", temperature=7)
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="hi", temperature=7)
        (error,) = until_done(connection)
    assert error.status == 400
    assert error.error.model_dump(exclude_none=True) == {
        k: v
        for k, v in refused.value.body.items()
        if v is not None  # type: ignore[union-attr]
    }


@pytest.mark.parametrize(
    ("field", "value"), [("background", True), ("stream", False), ("stream_id", "no spaces")]
)
def test_what_a_socket_cannot_do_is_refused(
    sync_client: openai.OpenAI, field: str, value: Any
) -> None:
    with sync_client.responses.connect() as connection:
        connection.send({"type": "response.create", "model": "gpt-4o-mini", field: value})
        error = connection.recv()
    assert error.type == "error"
    assert error.status == 400
    assert error.error.param == field


def test_an_error_mid_stream_is_an_error_event_then_the_failed_response(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    script(control, text=TEXT, fault={"error_after": 4, "error": {"preset": "overloaded"}})
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="hi")
        events = until_done(connection, ends=TERMINAL)
    assert [e.type for e in events][-2:] == ["error", "response.failed"]
    error = events[-2]
    assert error.sequence_number == 4
    assert error.status is None
    assert (error.error.type, error.error.code) == (
        "service_unavailable_error",
        "server_is_overloaded",
    )
    assert events[-1].sequence_number == 5


def test_a_cut_stream_closes_the_socket_with_1011(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    script(control, text=TEXT, fault={"disconnect_after": 3})
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="hi")
        events: list[Any] = []
        with pytest.raises(ConnectionClosedError) as closed:
            events.extend(connection)
    assert [e.type for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
    ]
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1011


def test_a_chain_goes_on_over_http_and_back(
    sync_client: openai.OpenAI, client: openai.OpenAI
) -> None:
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="First")
        first = until_done(connection)[-1].response
        second = client.responses.create(
            model="gpt-4o-mini", input="Second", previous_response_id=first.id
        )
        connection.response.create(
            model="gpt-4o-mini", input="Third", previous_response_id=second.id
        )
        third = until_done(connection)[-1].response
    assert (second.previous_response_id, third.previous_response_id) == (first.id, second.id)
    # the whole chain is the third's context: its input counts the two turns before it
    assert third.usage is not None
    assert first.usage is not None
    assert second.usage is not None
    assert third.usage.input_tokens > second.usage.input_tokens > first.usage.input_tokens


def test_socket_responses_are_journaled_as_calls_with_their_events(
    sync_client: openai.OpenAI, control: httpx.Client
) -> None:
    with sync_client.responses.connect() as connection:
        connection.response.create(model="gpt-4o-mini", input="one", stream_id="a")
        until_done(connection)
        connection.response.create(model="gpt-4o-mini", input="two", stream_id="a")
        until_done(connection)
    calls = control.get("/calls").json()["data"]
    assert [(c["method"], c["path"], c["status"], c["stream"]) for c in calls] == [
        ("POST", "/v1/responses", 200, True)
    ] * 2
    assert [c["request"]["input"] for c in calls] == ["one", "two"]
    # the handshake's headers, its upgrade among them, and the request's lane
    headers = calls[0]["request_headers"]
    assert (headers["upgrade"], headers["x-mockserver-stream-id"]) == ("websocket", "a")
    answer = calls[0]["response"]
    assert answer[0]["type"] == "response.created"
    assert answer[-1]["type"] == "response.completed"
    assert calls[0]["timing"]  # when its writes left (an unpaced stream: one write)


def test_a_wrong_key_is_refused_at_the_handshake(server: BackgroundServer) -> None:
    from tests.conftest import start_server

    keyed = start_server(api_keys=["sk-right"])
    try:
        wrong = openai.OpenAI(base_url=keyed.base_url, api_key="sk-wrong", max_retries=0)
        with pytest.raises(Exception, match="401"), wrong.responses.connect():
            pass
        right = openai.OpenAI(base_url=keyed.base_url, api_key="sk-right", max_retries=0)
        with right.responses.connect() as connection:
            connection.response.create(model="gpt-4o-mini", input="hi")
            assert until_done(connection)[-1].type == "response.completed"
    finally:
        keyed.stop()


@pytest.mark.anyio
async def test_the_async_client_runs_a_tool_loop(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    script(control, tool_calls=[{"name": "get_weather", "arguments": {"city": "Oslo"}}])
    script(control, text="Cold.")
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=api_key, max_retries=0)
    async with client.responses.connect() as connection:
        await connection.response.create(model="gpt-4o-mini", input="Oslo?", tools=[WEATHER])
        first = None
        async for event in connection:
            if event.type == "response.completed":
                first = event.response
                break
        assert first is not None
        (call,) = [item for item in first.output if item.type == "function_call"]
        await connection.response.create(
            model="gpt-4o-mini",
            previous_response_id=first.id,
            input=[{"type": "function_call_output", "call_id": call.call_id, "output": "-3C"}],
        )
        answered = None
        async for event in connection:
            if event.type == "response.completed":
                answered = event.response.output_text
                break
        assert answered == "Cold."
    await client.close()
