"""A client that never finishes its request is answered 408 and closed; a malformed request gets
the API's JSON 400 (at the protocol, before any route)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server


@pytest.fixture(scope="module")
def impatient() -> Iterator[BackgroundServer]:
    server = start_server(header_timeout=0.3, body_timeout=0.3)
    yield server
    server.stop()


def _answer(server: BackgroundServer, sent: bytes) -> tuple[str, dict[str, object], bytes]:
    """What the server answers ``sent`` (the status line, the JSON body), once it closes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(sent)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b"\r\n")[0].decode()
    return status, json.loads(body), head


def test_a_connection_that_sends_nothing_gets_a_408(impatient: BackgroundServer) -> None:
    status, body, head = _answer(impatient, b"")
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body == {
        "error": {
            "message": "The request's headers did not arrive within 0.3 seconds.",
            "type": "invalid_request_error",
            "param": None,
            "code": "request_timeout",
        }
    }
    assert b"connection: close" in head


def test_headers_that_never_end_get_a_408(impatient: BackgroundServer) -> None:
    status, body, _ = _answer(impatient, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body["error"]["code"] == "request_timeout"  # type: ignore[index]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/moderations"])
def test_a_body_that_never_ends_gets_a_408(impatient: BackgroundServer, path: str) -> None:
    sent = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        'Content-Length: 100\r\n\r\n{"model": '
    ).encode()
    status, body, _ = _answer(impatient, sent)
    assert status == "HTTP/1.1 408 Request Timeout"
    assert body["error"]["message"] == (  # type: ignore[index]
        "The request's body did not arrive within 0.3 seconds."
    )


def test_others_are_served_while_a_slow_client_waits(impatient: BackgroundServer) -> None:
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as slow:
        slow.sendall(b"POST /v1/chat/completions HTTP/1.1\r\n")
        answer = httpx.post(
            impatient.base_url + "/chat/completions",
            json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]},
            headers={"authorization": "Bearer sk-patient"},
        )
        assert answer.status_code == 200
        assert slow.recv(65536).startswith(b"HTTP/1.1 408 Request Timeout\r\n")


def test_a_complete_request_is_not_cut_by_the_deadline(impatient: BackgroundServer) -> None:
    with httpx.Client(base_url=impatient.base_url) as client:
        for _ in range(3):  # the same kept-alive connection: each request its own deadline
            answer = client.post(
                "/chat/completions",
                json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]},
            )
            assert answer.status_code == 200


def test_a_later_request_on_a_connection_gets_its_own_whole_deadline(
    impatient: BackgroundServer,
) -> None:
    # The first request arms the connection's timer for 0.3 s after it began; the second
    # begins 0.15 s later and stalls. Its 408 must come 0.3 s after *its* start (the timer
    # looks at 0.3 s, finds a later deadline and waits for it), not when the first would have.
    chat = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}]}'
    whole = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(chat), chat)
    )
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=10) as sock:
        sock.sendall(whole)
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 OK\r\n")
        time.sleep(0.15)
        began = time.monotonic()
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        waited = time.monotonic() - began
    assert data.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert b"did not arrive within 0.3 seconds" in data
    assert waited >= 0.25  # not the first request's deadline, 0.15 s after this one began


@pytest.mark.parametrize(
    "sent",
    [b"GET /v1/models HTTP/1.1 nonsense\r\n\r\n", b"GET /v1/models HTTP/1.1\r\nNo colon\r\n\r\n"],
    ids=["request-line", "header"],
)
def test_a_malformed_request_gets_the_api_json_400(server: BackgroundServer, sent: bytes) -> None:
    status, body, head = _answer(server, sent)
    assert status == "HTTP/1.1 400 Bad Request"
    assert body == {
        "error": {
            "message": "Invalid HTTP request received.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    assert b"content-type: application/json" in head


def test_an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout() -> None:
    server = start_server()
    server._server.config.timeout_keep_alive = 0.3  # uvicorn's 5 s, for each new connection
    chat = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}]}'
    whole = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(chat), chat)
    )
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            for _ in range(2):  # an answer within the timeout keeps the connection open
                sock.sendall(whole)
                assert sock.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")
                time.sleep(0.15)
            began = time.monotonic()
            assert sock.recv(65536) == b""  # closed, with nothing written
            waited = time.monotonic() - began
    finally:
        server.stop()
    assert 0.05 <= waited < 2  # 0.3 s after the last answer, not 0.3 s after the first
