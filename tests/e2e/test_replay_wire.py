"""The replay lane at the HTTP protocol: the raw bytes on the wire are those uvicorn writes for
the full path (status line, headers, chunked framing), on one kept-alive connection, with the
body in pieces, and with requests pipelined."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mockserver.http.lane.recipes import Replays
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.wire import conversation, request

CHAT = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
STREAM = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}],"stream":true}'
RESPONSES = b'{"model":"gpt-4o-mini","input":"Hello","stream":true,"max_output_tokens":16}'


def replays(server: BackgroundServer) -> Replays:
    found: Replays = server.app.state.replays
    return found


@pytest.fixture
def lanes() -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    on, off = start_server(seed=5), start_server(seed=5, replay=False)
    yield on, off
    on.stop()
    off.stop()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", CHAT),
        ("/v1/chat/completions", STREAM),
        ("/v1/responses", RESPONSES),
    ],
    ids=["chat", "chat-stream", "responses-stream"],
)
def test_the_wire_bytes_are_those_of_the_full_path(
    lanes: tuple[BackgroundServer, BackgroundServer], path: str, body: bytes
) -> None:
    on, off = lanes
    writes = [request(path, body) for _ in range(4)]
    assert conversation(on, writes, 4) == conversation(off, writes, 4)
    assert replays(on).served == 2  # seen, filed, then answered by the protocol twice


def test_a_body_in_pieces_and_pipelined_requests(
    lanes: tuple[BackgroundServer, BackgroundServer],
) -> None:
    on, off = lanes
    whole = request("/v1/chat/completions", CHAT)
    cut = whole.index(b"\r\n\r\n") + 10
    writes = [whole, whole, whole[:cut], whole[cut:], whole + whole + whole]
    assert conversation(on, writes, 6) == conversation(off, writes, 6)
    assert replays(on).served >= 2


def test_a_big_body_goes_the_usual_way(lanes: tuple[BackgroundServer, BackgroundServer]) -> None:
    on, off = lanes
    big = b'{"model":"m","messages":[{"role":"user","content":"' + b"x" * 100_000 + b'"}]}'
    writes = [request("/v1/chat/completions", big) for _ in range(4)]
    # The protocol does not hold such a body; the ASGI lane answers it when uvicorn hands it
    # over in one piece (that depends on TCP segments): either way, the same bytes.
    assert conversation(on, writes, 4) == conversation(off, writes, 4)


def test_a_failing_lane_is_a_logged_500_not_a_bad_request(
    lanes: tuple[BackgroundServer, BackgroundServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    on, _ = lanes
    writes = [request("/v1/chat/completions", CHAT) for _ in range(2)]
    conversation(on, writes, 2)  # seen, then filed

    def broken(key: object, **_: object) -> None:
        raise RuntimeError("lane bug")

    monkeypatch.setattr(on.app.state.lane, "answer", broken)
    answer = conversation(on, writes[:1], 1)[0]
    assert answer.startswith(b"HTTP/1.1 500 ")
    assert b'"type": "server_error"' in answer
    assert "lane bug" in on.app.state.engine.internal_errors[-1]
