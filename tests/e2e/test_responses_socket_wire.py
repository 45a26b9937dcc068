"""The Responses socket's messages on the wire, read with a plain WebSocket client (the
``websockets`` package): each is, byte for byte, the JSON of the SSE frame the same request
gets over HTTP; and upgrades where no socket is served are answered as plain HTTP."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

KEY = "sk-wire"
ASK: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "input": "What is the weather like?",
    "tools": [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}],
    "reasoning": None,
}


@pytest.fixture
def twins() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    """Two servers alike (seed, frozen clock): the same request gets the same bytes on each."""
    first, second = start_server(seed=99), start_server(seed=99)
    yield first, second
    first.stop()
    second.stop()


def sse_payloads(server: BackgroundServer, body: dict[str, Any]) -> list[bytes]:
    answer = httpx.post(
        f"{server.base_url}/responses",
        json={**body, "stream": True},
        headers={"Authorization": f"Bearer {KEY}"},
    )
    assert answer.status_code == 200, answer.text
    frames = answer.content.split(b"\n\n")[:-1]
    assert frames
    assert all(f.startswith(b"event: ") for f in frames)
    return [frame.split(b"\ndata: ", 1)[1] for frame in frames]


def socket_messages(server: BackgroundServer, *events: dict[str, Any]) -> list[bytes]:
    """Every message the socket sends for ``events``, up to as many terminal events."""
    url = f"ws://127.0.0.1:{server.port}/v1/responses"
    received: list[bytes] = []
    with connect(url, additional_headers={"Authorization": f"Bearer {KEY}"}) as ws:
        for event in events:
            ws.send(json.dumps(event))
        ends = 0
        while ends < len(events):
            message = ws.recv(timeout=10)
            assert isinstance(message, str)  # text messages, never binary
            received.append(message.encode())
            kind = json.loads(message)["type"]
            ends += kind in ("response.completed", "response.failed", "error")
    return received


def test_each_message_is_the_sse_frames_json_byte_for_byte(
    twins: tuple[BackgroundServer, BackgroundServer],
) -> None:
    over_http, over_socket = twins
    expected = sse_payloads(over_http, ASK)
    got = socket_messages(over_socket, {"type": "response.create", **ASK})
    assert got == expected


def test_a_lanes_messages_carry_its_stream_id_last(
    twins: tuple[BackgroundServer, BackgroundServer],
) -> None:
    over_http, over_socket = twins
    expected = sse_payloads(over_http, ASK)
    got = socket_messages(over_socket, {"type": "response.create", "stream_id": "a.1", **ASK})
    assert got == [payload[:-1] + b',"stream_id":"a.1"}' for payload in expected]


def test_stream_true_is_accepted_as_the_official_clients_send_it(
    twins: tuple[BackgroundServer, BackgroundServer],
) -> None:
    over_http, over_socket = twins
    expected = sse_payloads(over_http, ASK)
    got = socket_messages(over_socket, {"type": "response.create", "stream": True, **ASK})
    assert got == expected


def test_a_bad_client_event_gets_an_error_event(server: BackgroundServer) -> None:
    url = f"ws://127.0.0.1:{server.port}/v1/responses"
    with connect(url, additional_headers={"Authorization": f"Bearer {KEY}"}) as ws:
        ws.send("{not json")
        broken = json.loads(ws.recv(timeout=10))
        ws.send(json.dumps({"type": "response.cancel"}))
        unknown = json.loads(ws.recv(timeout=10))
    assert broken["type"] == "error"
    assert broken["status"] == 400
    assert broken["error"]["type"] == "invalid_request_error"
    assert unknown["error"]["param"] == "type"
    assert "response.create" in unknown["error"]["message"]


def test_the_sdks_query_parameters_are_served_too(server: BackgroundServer) -> None:
    url = f"ws://127.0.0.1:{server.port}/v1/responses?api-version=preview"
    with connect(url, additional_headers={"Authorization": f"Bearer {KEY}"}) as ws:
        ws.send(json.dumps({"type": "response.create", "model": "gpt-4o-mini", "input": "hi"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "response.created"


def handshake(server: BackgroundServer, path: str) -> tuple[bytes, bytes]:
    """A raw upgrade request for ``path``: the answer's head and body."""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        f"Authorization: Bearer {KEY}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body


@pytest.mark.parametrize(
    ("path", "status"),
    [("/v1/realtime", 404), ("/v1/models", 200), ("/v1/embeddings", 405)],
)
def test_an_upgrade_where_no_socket_is_served_gets_the_plain_gets_answer(
    server: BackgroundServer, path: str, status: int
) -> None:
    head, body = handshake(server, path)
    plain = httpx.get(server.url + path, headers={"Authorization": f"Bearer {KEY}"})
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), head
    assert plain.status_code == status
    assert json.loads(body) == plain.json()
