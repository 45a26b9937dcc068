"""With its state in Redis, the server awaits each turn's round trip instead of waiting for it:
a request stuck on a silent Redis holds up no other, and requests pipelined on one connection
are still answered in the order they came, a slow answer handed to the full path included."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import h11
import httpx
import orjson
import pytest

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.support.redis_server import RedisServer

KEY = "sk-awaited"
#: The pipelined requests' namespaces: one each, so that nothing but the connection orders them.
KEYS = [f"{KEY}-{n}" for n in range(3)]


@pytest.fixture
def url(redis_server: RedisServer) -> Iterator[str]:
    settings = Settings(port=0, state_url=redis_server.url, state_prefix=RedisServer.new_prefix())
    with BackgroundServer(create_app(settings)) as server:
        for key in (KEY, *KEYS):  # each namespace known: its turns take one awaited round trip
            assert _chat(server.url, "learn the namespace", key=key).status_code == 200
        yield server.url


def _chat(url: str, text: str, *, key: str = KEY) -> httpx.Response:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}
    return httpx.post(
        url + "/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    )


def test_a_turn_waiting_on_a_silent_redis_holds_up_no_other_request(
    url: str, redis_server: RedisServer
) -> None:
    redis_server.pause()
    try:
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(_chat, url, "a new message, while Redis is silent")
            time.sleep(0.3)  # it has reached the server, and waits on Redis (1 s at most)
            health = httpx.get(url + "/__mockserver/health", timeout=10)
            assert health.status_code == 200
            assert not waiting.done()  # answered while the turn still waits
            redis_server.resume()
            late = waiting.result(timeout=10)
    finally:
        redis_server.resume()
    # Answered once Redis is back, or (on a machine slow enough that it stayed silent for the
    # store's whole timeout) the API's 503 saying why.
    assert late.status_code == 200 or late.json()["error"]["code"] == "server_is_overloaded"
    assert _chat(url, "and once Redis is back").status_code == 200


def _request(text: str, key: str, *, stream: bool = False) -> tuple[h11.Request, bytes]:
    body = orjson.dumps(
        {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}], "stream": stream}
    )
    headers = [
        ("host", "127.0.0.1"),
        ("content-type", "application/json"),
        ("authorization", f"Bearer {key}"),
        ("content-length", str(len(body))),
    ]
    return h11.Request(method="POST", target="/v1/chat/completions", headers=headers), body


def test_pipelined_requests_are_answered_in_order_a_handed_over_one_among_them(
    url: str,
) -> None:
    queued = httpx.post(
        url + "/__mockserver/next",
        params={"namespace": KEYS[0]},
        json={"text": "the slow one", "latency": {"delay": 0.4}},
        timeout=10,
    )
    assert queued.status_code == 200  # the first of the three is paced: the full path sends it
    requests = [
        _request("first", KEYS[0]),
        _request("second", KEYS[1]),
        _request("third", KEYS[2], stream=True),
    ]
    client = h11.Connection(h11.CLIENT)
    sent = b"".join(
        client.send(head) + client.send(h11.Data(data=body)) + client.send(h11.EndOfMessage())
        if n == 0
        else _raw(head, body)
        for n, (head, body) in enumerate(requests)
    )
    host, port = url.removeprefix("http://").split(":")
    answers: list[tuple[int, str, bytes]] = []
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(sent)  # all three in one write, before any answer
        for n in range(3):
            if n:
                client.start_next_cycle()
                head, body = requests[n]
                client.send(head)
                client.send(h11.Data(data=body))
                client.send(h11.EndOfMessage())
            status, kind, data = 0, "", b""
            while True:
                event = client.next_event()
                if event is h11.NEED_DATA:
                    client.receive_data(sock.recv(65536))
                elif isinstance(event, h11.Response):
                    status = event.status_code
                    kind = dict(event.headers).get(b"content-type", b"").decode()
                elif isinstance(event, h11.Data):
                    data += event.data
                elif isinstance(event, h11.EndOfMessage):
                    break
            answers.append((status, kind, data))
    assert [(status, kind.split(";")[0]) for status, kind, _ in answers] == [
        (200, "application/json"),
        (200, "application/json"),
        (200, "text/event-stream"),
    ]
    texts = [orjson.loads(data)["choices"][0]["message"]["content"] for _, _, data in answers[:2]]
    assert texts[0] == "the slow one"  # though the second was ready 0.4 s before it
    assert texts[1] != "the slow one"
    assert answers[2][2].endswith(b"data: [DONE]\n\n")


def _raw(head: h11.Request, body: bytes) -> bytes:
    """A request's bytes, as the client's h11 would write them in a later cycle."""
    lines = [f"{head.method.decode()} {head.target.decode()} HTTP/1.1"]
    lines += [f"{name.decode()}: {value.decode()}" for name, value in head.headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body
