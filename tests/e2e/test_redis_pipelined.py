"""The Redis backend's speed devices (``RedisStore(pipelined=...)``: turns awaited on the event
loop's pipelined connection, made on the change the one before sends; journal times taken along
with the next change) change speed, never behaviour: two servers on one real Redis, the devices
on and off, answer the same requests with the same bytes, journal and counts — one request at
a time, and many of one namespace at once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from mockserver.engine import Engine
from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from mockserver.store.redis import RedisStore
from tests.support.redis_server import RedisServer

VOLATILE = {"date", "server"}
SCENARIO = """
name: counted
rules:
  - id: flaky
    when: {last_user: {contains: flaky}}
    replies:
      - error: {preset: rate_limited}
      - text: recovered
  - id: once
    when: {last_user: {contains: once}}
    times: 1
    reply: {text: only once}
"""


def _server(redis_server: RedisServer, *, pipelined: bool) -> BackgroundServer:
    settings = Settings(port=0, clock="frozen", seed=7, state_url=redis_server.url)
    store = RedisStore(redis_server.url, prefix=RedisServer.new_prefix(), pipelined=pipelined)
    store.check()
    app = create_app(settings, engine=Engine(settings, store=store))
    assert (store.turns is not None) == pipelined
    return BackgroundServer(app).start()


@pytest.fixture
def both(redis_server: RedisServer) -> Iterator[tuple[BackgroundServer, BackgroundServer]]:
    on, off = _server(redis_server, pipelined=True), _server(redis_server, pipelined=False)
    yield on, off
    on.stop()
    off.stop()


def _chat(text: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}], **extra}
    return "/v1/chat/completions", body


def _seen(server: BackgroundServer, http: httpx.Client) -> list[Any]:
    """The journal (its times apart: each server's own) and the scenario's counts."""
    calls = http.get("/__mockserver/calls").json()["data"]
    assert calls, "nothing journaled"
    for call in calls:
        call.pop("duration_ms")
        call.pop("timing")
        assert call["request_headers"].pop("host") == server.url.split("//")[1]  # its own port
    return [calls, http.get("/__mockserver/scenario").json()]


def _session(server: BackgroundServer, sends: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    seen: list[Any] = []
    previous = ""
    with httpx.Client(base_url=server.url, headers={"Authorization": "Bearer sk-p"}) as http:
        yaml = {"content-type": "application/yaml"}
        put = http.put("/__mockserver/scenario", content=SCENARIO, headers=yaml)
        assert put.status_code == 200, put.text
        for path, body in sends:
            if "previous_response_id" in body:
                body = {**body, "previous_response_id": previous}
            answer = http.post(path, json=body)
            if path == "/v1/responses":
                previous = answer.json()["id"]
            kept = [(k, v) for k, v in answer.headers.multi_items() if k not in VOLATILE]
            seen.append((answer.status_code, kept, answer.content))
        seen += _seen(server, http)
    return seen


def test_requests_one_at_a_time_are_answered_alike_either_way(
    both: tuple[BackgroundServer, BackgroundServer],
) -> None:
    sends = [
        _chat("hello"),
        _chat("hello"),  # the lane's recipe, from the second time
        _chat("hello"),
        _chat("flaky"),
        _chat("flaky"),
        _chat("once"),
        _chat("once"),
        _chat("stream me", stream=True, stream_options={"include_usage": True}),
        _chat("keep me", store=True, metadata={"k": "v"}),
        ("/v1/responses", {"model": "gpt-4o", "input": "first"}),
        ("/v1/responses", {"model": "gpt-4o", "input": "then", "previous_response_id": None}),
        ("/v1/embeddings", {"model": "text-embedding-3-small", "input": ["a", "b"]}),
    ]
    on, off = both
    assert _session(on, sends) == _session(off, sends)


def test_many_turns_of_one_namespace_at_once_take_each_number_once_either_way(
    both: tuple[BackgroundServer, BackgroundServer],
) -> None:
    def burst(server: BackgroundServer) -> tuple[list[str], list[int]]:
        with httpx.Client(base_url=server.url, headers={"Authorization": "Bearer sk-b"}) as http:

            def send(n: int) -> httpx.Response:
                path, body = _chat(f"a new message, number {n}")
                return http.post(path, json=body)

            with ThreadPoolExecutor(16) as pool:
                answers = list(pool.map(send, range(48)))
            assert [a.status_code for a in answers] == [200] * 48
            ids = sorted(a.json()["id"] for a in answers)
            calls = http.get("/__mockserver/calls", params={"limit": 100}).json()["data"]
            return ids, sorted(call["seq"] for call in calls)

    on, off = both
    turns = on.app.state.engine.store.turns
    awaited = 0
    run = turns.run

    async def counted(script: str, args: list[object]) -> Any:
        nonlocal awaited
        awaited += 1
        return await run(script, args)

    turns.run = counted
    ids, seqs = burst(on)
    assert awaited >= 48  # the turns went by the pipe
    assert (ids, seqs) == burst(off)
    assert len(set(ids)) == 48  # each number taken once
    assert seqs == list(range(1, 49))
