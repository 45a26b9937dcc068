"""The lane's fresh turns: a new chat request is answered outside ASGI, with the bytes, state
and journal of the full path — and when its answer cannot be sent as is (paced, faulted,
refused after the turn was taken), the route sends the turn the lane took, never a second one.

Each test runs the same requests against two servers with the same seed, the lane on and off,
and compares everything a client or a test can see: status, headers, bodies, the journal,
rule hits."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.render import sse
from tests.conftest import start_server
from tests.support.wire import conversation, request

VOLATILE = {"date", "server"}
HELLO = [{"role": "user", "content": "Hello there"}]


@pytest.fixture
def lanes() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    on, off = start_server(seed=7), start_server(seed=7, replay=False)
    yield on, off
    on.stop()
    off.stop()


def fresh_answers(server: BackgroundServer) -> int:
    answered: int = server.app.state.lane.fresh_answers
    return answered


def session(
    server: BackgroundServer,
    sends: list[tuple[str, Any, dict[str, str]]],
    scenario: str | None = None,
) -> list[Any]:
    """Each ``(path, body, headers)`` sent in turn (a body that is not bytes is sent as JSON);
    what came back, then the journal and the scenario's rule hits."""
    seen: list[Any] = []
    auth = {"Authorization": "Bearer sk-fresh"}
    with httpx.Client(base_url=server.url, headers=auth, timeout=10) as http:
        if scenario is not None:
            answer = http.put(
                "/__mockserver/scenario",
                content=scenario,
                headers={"content-type": "application/yaml"},
            )
            assert answer.status_code == 200, answer.text
        for path, body, headers in sends:
            if isinstance(body, bytes):
                answer = http.post(path, content=body, headers=headers)
            else:
                answer = http.post(path, json=body, headers=headers)
            kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, kept, answer.content))
        calls = http.get("/__mockserver/calls").json()["data"]
        seen.append(http.get("/__mockserver/scenario").json())
    assert calls
    for call in calls:
        assert call.pop("duration_ms") is not None, call  # every entry was completed
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]  # its own port
    seen.append(calls)
    return seen


def chat(body: Any, **headers: str) -> tuple[str, Any, dict[str, str]]:
    return ("/v1/chat/completions", body, headers)


def varied(count: int, **extra: Any) -> list[tuple[str, Any, dict[str, str]]]:
    return [
        chat({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"#{n}"}], **extra})
        for n in range(count)
    ]


def test_new_requests_are_answered_by_the_lane_as_by_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    sends = [
        *varied(3),
        *varied(2, stream=True, stream_options={"include_usage": True}),
        *varied(2, logprobs=True, top_logprobs=2, max_completion_tokens=5),
        *varied(2, store=True, metadata={"k": "v"}),
        chat(
            {
                "model": "m",
                "messages": [{"role": "user", "content": "Answer in JSON"}],
                "response_format": {"type": "json_object"},
            }
        ),
        chat({"model": "m", "messages": HELLO}, **{"X-Mockserver-Session": "other"}),
    ]
    assert session(on, sends) == session(off, sends)
    assert fresh_answers(on) == len(sends)


SCRIPTED = """
rules:
  - id: slow
    when: {last_user: {contains: slow}}
    reply: {text: slowly now, latency: {delay: 0.03, ttft: 0.01, tokens_per_second: 2000}}
  - id: cut
    when: {last_user: {contains: cut}}
    reply:
      text: this stream breaks half way through
      fault: {error_after: 2, error: {preset: server_error}}
  - id: short
    when: {last_user: {contains: short}}
    reply: {text: a body cut short, fault: {truncate: 0.5}}
  - id: refused
    when: {last_user: {contains: refuse}}
    reply: {error: {preset: rate_limited}}
  - id: once
    when: {last_user: {contains: once}}
    times: 1
    reply: {text: only once}
"""


def test_a_turn_the_lane_cannot_send_is_sent_by_the_route_once(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    """Paced, faulted and refused turns change the namespace's state (its request number, the
    rule's hits) before the lane knows; the route sends them without taking another turn."""
    on, off = lanes

    def say(text: str, **extra: Any) -> tuple[str, Any, dict[str, str]]:
        return chat({"model": "m", "messages": [{"role": "user", "content": text}], **extra})

    sends = [
        say("slow"),
        say("slow", stream=True),
        say("cut", stream=True),
        say("short"),
        say("please refuse"),
        say("refuse", stream=True),
        say("once"),
        say("once"),  # used up: generated
        say("plain"),
        ("/v1/responses", {"model": "m", "input": "slow", "stream": True}, {}),
        ("/v1/responses", {"model": "m", "input": "cut", "stream": True}, {}),
        ("/v1/responses", {"model": "m", "input": "short"}, {}),
        ("/v1/responses", {"model": "m", "input": "refuse"}, {}),
    ]
    assert session(on, sends, SCRIPTED) == session(off, sends, SCRIPTED)


def test_legacy_completions_and_azure_paths_are_answered_alike(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    """Legacy completions take the lane (their new requests, and again: it keeps no template);
    Azure's paths take the full path, whose answers the lane must not change."""
    on, off = lanes
    legacy = {"model": "gpt-3.5-turbo-instruct", "prompt": "Hello", "max_tokens": 5}
    azure = "/openai/deployments/d/chat/completions?api-version=2024-10-21"
    sends = [
        ("/v1/completions", legacy, {}),
        ("/v1/completions", legacy, {}),
        ("/v1/completions", {**legacy, "stream": True, "logprobs": 2}, {}),
        ("/v1/completions", {**legacy, "prompt": ["a", "b"], "n": 2, "echo": True}, {}),
        ("/v1/completions", {**legacy, "logprobs": 9}, {}),
        (azure, {"messages": HELLO}, {"api-key": "sk-fresh"}),
        (azure, {"messages": HELLO, "stream": True}, {"api-key": "sk-fresh"}),
        ("/openai/v1/chat/completions", {"model": "d", "messages": HELLO}, {}),
    ]
    assert session(on, sends) == session(off, sends)
    assert fresh_answers(on) == 4


def test_requests_refused_before_their_turn_are_refused_by_the_route(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    sends = [
        chat(b'{"model": "m", "messages": ['),  # not JSON
        chat(b'["not an object"]'),
        chat({"model": "m"}),  # no messages
        chat({"model": "m", "messages": HELLO, "temperature": 9}),
        chat(b'{"model":"m","messages":[]}', **{"Content-Type": "text/plain"}),
        chat({"model": "m", "messages": HELLO}),
    ]
    assert session(on, sends) == session(off, sends)


def test_strict_and_rate_limited_scenarios(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    strict = (
        "fallback: strict\nrules:\n  - when: {last_user: {contains: sure}}\n    reply: {text: ok}\n"
    )
    sends = [*varied(2), chat({"model": "m", "messages": [{"role": "user", "content": "sure"}]})]
    assert session(on, sends, strict) == session(off, sends, strict)
    limited = "rate_limits: {requests_per_minute: 2}\nrules: []\n"
    assert session(on, varied(4), limited) == session(off, varied(4), limited)


def test_repeated_header_names_are_read_as_the_route_reads_them(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    """Two ``Authorization`` headers: the first names the namespace, on both paths."""
    on, off = lanes
    body = b'{"model":"m","messages":[{"role":"user","content":"twice"}]}'
    raw = request("/v1/chat/completions", body).replace(
        b"Authorization: Bearer sk-wire\r\n",
        b"Authorization: Bearer sk-first\r\nAuthorization: Bearer sk-second\r\n",
    )
    assert conversation(on, [raw], 1) == conversation(off, [raw], 1)
    for server in (on, off):
        with httpx.Client(base_url=server.url) as http:
            first = http.get("/__mockserver/calls", headers={"Authorization": "Bearer sk-first"})
        assert len(first.json()["data"]) == 1


def test_the_lane_never_sends_half_an_answer_when_the_client_is_gone(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    """A client that sends a request and leaves: the turn is journaled, the server lives on."""
    on, _ = lanes
    body = b'{"model":"m","messages":[{"role":"user","content":"bye"}]}'
    with socket.create_connection(("127.0.0.1", on.port), timeout=5) as sock:
        sock.sendall(request("/v1/chat/completions", body))
    with httpx.Client(base_url=on.url, headers={"Authorization": "Bearer sk-wire"}) as http:
        for _ in range(100):
            if http.get("/__mockserver/calls").json()["data"]:
                break
            time.sleep(0.02)
        calls = http.get("/__mockserver/calls").json()["data"]
        answer = http.post("/v1/chat/completions", content=body)
    assert [call["status"] for call in calls] == [200]
    assert answer.status_code == 200


def test_new_responses_requests_are_answered_and_stored_as_by_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    """Responses: stored, chained, streamed, in a conversation, in the background, refused
    before the turn (an unknown previous response) and after it; then everything read back."""

    def run(server: BackgroundServer) -> list[Any]:
        seen: list[Any] = []
        auth = {"Authorization": "Bearer sk-fresh-r"}
        with httpx.Client(base_url=server.url, headers=auth, timeout=10) as http:

            def post(path: str, body: dict[str, Any]) -> httpx.Response:
                answer = http.post(path, json=body)
                kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
                seen.append((answer.status_code, kept, answer.content))
                return answer

            first = post("/v1/responses", {"model": "m", "input": "Hello"}).json()["id"]
            post("/v1/responses", {"model": "m", "input": "More", "previous_response_id": first})
            post("/v1/responses", {"model": "m", "input": "x", "previous_response_id": "resp_no"})
            post("/v1/responses", {"model": "m", "input": "Hi", "stream": True, "store": False})
            post("/v1/responses", {"model": "m", "input": "Hi", "temperature": 7})
            conversation = post("/v1/conversations", {}).json()["id"]
            for text in ("one", "two"):
                post("/v1/responses", {"model": "m", "input": text, "conversation": conversation})
            late = post("/v1/responses", {"model": "m", "input": "later", "background": True})
            for _ in range(4):
                post_id = late.json()["id"]
                seen.append(http.get(f"/v1/responses/{post_id}").content)
            seen.append(http.get(f"/v1/conversations/{conversation}/items").content)
            seen.append(http.get(f"/v1/responses/{first}/input_items").content)
            calls = http.get("/__mockserver/calls").json()["data"]
        assert calls
        for call in calls:
            assert call.pop("duration_ms") is not None, call
            call.pop("timing")
            assert call["request_headers"].pop("host") == server.url.split("//")[1]
        seen.append(calls)
        return seen

    on, off = lanes
    assert run(on) == run(off)
    assert fresh_answers(on) == 6  # all but the two refusals


def test_in_process_the_asgi_lane_hands_off_as_the_protocol_does() -> None:
    """Without a socket (ASGI in-process, as ``httpx.ASGITransport`` or Starlette's
    ``TestClient`` call it), the middleware lane takes the fresh turns and hands off the same
    ones."""
    from starlette.testclient import TestClient

    from mockserver.http.app import create_app
    from mockserver.settings import Settings

    def say(text: str, **extra: Any) -> dict[str, Any]:
        return {"model": "m", "messages": [{"role": "user", "content": text}], **extra}

    bodies = [say("plain"), say("slow", stream=True), say("refuse"), say("once"), say("once")]
    seen = []
    for lane in (True, False):
        app = create_app(Settings(seed=3, clock="frozen", replay=lane))
        # A loopback base URL: the control plane does not answer TestClient's "testserver".
        with TestClient(
            app, base_url="http://127.0.0.1", headers={"Authorization": "Bearer sk-asgi"}
        ) as http:
            put = http.put(
                "/__mockserver/scenario",
                content=SCRIPTED,
                headers={"content-type": "application/yaml"},
            )
            assert put.status_code == 200, put.text
            answers = [http.post("/v1/chat/completions", json=body) for body in bodies]
            calls = http.get("/__mockserver/calls").json()["data"]
        for call in calls:
            call.pop("duration_ms")
            call.pop("timing")
        seen.append(([(a.status_code, a.headers.multi_items(), a.content) for a in answers], calls))
        if lane:
            assert app.state.lane.fresh_answers == 3  # plain, and "once" twice
    assert [status for status, _, _ in seen[0][0]] == [200, 200, 429, 200, 200]
    assert seen[0] == seen[1]


def _fuzzed(seed: int, count: int) -> list[tuple[str, Any, dict[str, str]]]:
    """``count`` requests of every kind, most of them wrong somewhere: chat and Responses
    bodies with random values in known parameters, and bodies that are not JSON objects."""
    rnd = random.Random(seed)

    def value(depth: int = 0) -> Any:
        roll = rnd.random()
        if depth > 2 or roll < 0.3:
            return rnd.choice([None, True, False, 0, -1, 1.5, "x", "", "json", 10**20, "user"])
        if roll < 0.6:
            return [value(depth + 1) for _ in range(rnd.randint(0, 3))]
        keys = ["role", "content", "type", "name", "text", "function"]
        return {rnd.choice(keys): value(depth + 1) for _ in range(rnd.randint(0, 3))}

    chat_keys = (
        "messages stream stream_options temperature n stop max_tokens max_completion_tokens"
        " logprobs top_logprobs tools tool_choice response_format seed store metadata"
        " parallel_tool_calls reasoning_effort service_tier functions function_call"
    ).split()
    responses_keys = (
        "input instructions stream store background previous_response_id tools tool_choice"
        " text max_output_tokens reasoning metadata include truncation conversation"
    ).split()
    sends: list[tuple[str, Any, dict[str, str]]] = []
    for _ in range(count):
        roll = rnd.random()
        if roll < 0.5:
            text = rnd.choice(["hi", "json please", "tell me"])
            body: Any = {"model": "m", "messages": [{"role": "user", "content": text}]}
            for _ in range(rnd.randint(0, 3)):
                body[rnd.choice(chat_keys)] = value()
            sends.append(chat(body))
        elif roll < 0.9:
            body = {"model": "m", "input": rnd.choice(["hi", [{"role": "user", "content": "yo"}]])}
            for _ in range(rnd.randint(0, 3)):
                body[rnd.choice(responses_keys)] = value()
            sends.append(("/v1/responses", body, {}))
        else:
            raw = rnd.choice([b"{", b"[]", b"\xff\xfe", b'{"model":"m","messages":[]} x'])
            sends.append(
                chat(raw, **{"Content-Type": rnd.choice(["application/json", "text/plain"])})
            )
    return sends


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzzed_requests_get_the_same_answers_and_journal_either_way(
    lanes: tuple[BackgroundServer, BackgroundServer], seed: int
) -> None:
    on, off = lanes
    sends = _fuzzed(seed, 150)
    assert session(on, sends) == session(off, sends)
    assert fresh_answers(on) > 10
    assert not on.app.state.engine.internal_errors


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {"model": "gpt-4o-mini", "messages": HELLO}),
        ("/v1/chat/completions", {"model": "gpt-4o-mini", "messages": HELLO, "stream": True}),
        ("/v1/responses", {"model": "gpt-4o-mini", "input": "Hello there"}),
        ("/v1/responses", {"model": "gpt-4o-mini", "input": "Hello there", "stream": True}),
    ],
    ids=["chat", "chat-stream", "responses", "responses-stream"],
)
def test_the_journal_keeps_the_answer_that_was_sent(
    lanes: tuple[BackgroundServer, BackgroundServer], path: str, body: dict[str, Any]
) -> None:
    """The journal keeps the bytes sent and parses them when read: what it shows is what the
    client got, whichever path answered."""
    for server in lanes:
        with httpx.Client(base_url=server.url, headers={"Authorization": "Bearer sk-j"}) as http:
            answer = http.post(path, json=body)
            [call] = http.get("/__mockserver/calls").json()["data"]
        assert answer.status_code == 200, answer.text
        sent = sse.decode_stream(answer.content) if body.get("stream") else answer.json()
        assert call["response"] == sent
        assert call["stream"] is bool(body.get("stream"))
        if body.get("stream"):
            assert len(sent) > 5
    assert fresh_answers(lanes[0]) == 1


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/responses"])
def test_a_declared_oversize_body_is_refused_at_once_with_the_lane_on(
    lanes: tuple[BackgroundServer, BackgroundServer], path: str
) -> None:
    """The lane holds small bodies only: one declared too big goes the usual way, which
    refuses it without waiting for bytes that will never come."""
    for server in lanes:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Authorization: Bearer sk-big\r\nContent-Length: 99999999999\r\n\r\n{}"
        )
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(head.encode())
            answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert b'"type": "invalid_request_error"' in answer
