"""What a request costs in Redis round trips, on a real server with the Redis backend: one for
a request that only its namespace's counters and journal remember (the turn is written on the
state this process last saw), two for one that reads a stored object first; and a turn made on
a state another process changed meanwhile is made again on the new one, not lost."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
import pytest

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from mockserver.store.redis import RedisStore, pipe
from tests.support.redis_server import RedisServer

CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]}


class Counted:
    """A served app's Redis calls, counted per request, waited for or awaited; the calls that
    only write the journal's times (``complete``: off the request's path) apart."""

    def __init__(self, store: RedisStore) -> None:
        self.calls = 0
        self.completions = 0
        client, turns = store.client, store.turns
        plain = client.call

        def call(step: Callable[[Any], Any]) -> Any:
            self.calls += 1
            return plain(step)

        client.call = call  # type: ignore[method-assign]
        assert turns is not None
        soon = turns.run

        async def run(script: str, args: list[object]) -> Any:  # a request's turn, awaited
            if script == "complete":
                self.completions += 1
            else:
                self.calls += 1
            return await soon(script, args)

        turns.run = run  # type: ignore[method-assign]

    def of(self, send: Callable[[], httpx.Response]) -> int:
        before = self.calls
        answer = send()
        assert answer.status_code == 200, answer.text
        return self.calls - before


@pytest.fixture
def served(redis_server: RedisServer) -> Iterator[tuple[str, Counted, RedisStore]]:
    settings = Settings(port=0, state_url=redis_server.url, state_prefix=RedisServer.new_prefix())
    app = create_app(settings)
    with BackgroundServer(app) as server:
        store = app.state.engine.store
        assert isinstance(store, RedisStore)
        yield server.url, Counted(store), store


def _post(url: str, path: str, body: dict[str, Any], key: str = "sk-trips") -> httpx.Response:
    return httpx.post(url + path, json=body, headers={"Authorization": f"Bearer {key}"})


def test_a_new_chat_request_costs_one_round_trip(served: tuple[str, Counted, RedisStore]) -> None:
    url, counted, _ = served
    counted.of(lambda: _post(url, "/v1/chat/completions", CHAT))  # this process learns the state
    trips = [
        counted.of(
            lambda n=n: _post(  # type: ignore[misc]
                url,
                "/v1/chat/completions",
                {**CHAT, "messages": [{"role": "user", "content": f"new message {n}"}]},
            )
        )
        for n in range(5)
    ]
    streamed = counted.of(lambda: _post(url, "/v1/chat/completions", {**CHAT, "stream": True}))
    stored = counted.of(lambda: _post(url, "/v1/chat/completions", {**CHAT, "store": True}))
    responses = counted.of(lambda: _post(url, "/v1/responses", {"model": "gpt-4o", "input": "hi"}))
    assert trips == [1] * 5
    assert (streamed, stored, responses) == (1, 1, 1)


def test_a_request_that_reads_a_stored_response_costs_two(
    served: tuple[str, Counted, RedisStore],
) -> None:
    url, counted, _ = served
    first = _post(url, "/v1/responses", {"model": "gpt-4o", "input": "hi"}).json()
    follow = {"model": "gpt-4o", "input": "and then?", "previous_response_id": first["id"]}
    assert counted.of(lambda: _post(url, "/v1/responses", follow)) == 2


def test_a_turn_on_a_state_another_process_changed_is_made_again_on_the_new_one(
    served: tuple[str, Counted, RedisStore], redis_server: RedisServer
) -> None:
    url, counted, store = served
    other = RedisStore(redis_server.url, prefix=store.prefix)  # another process, same Redis
    try:
        trips = []
        for n in range(4):
            trips.append(counted.of(lambda: _post(url, "/v1/chat/completions", CHAT)))
            moved = other.transact("sk-trips", lambda space: space.next_counter())
            assert moved == 2 * n + 2  # the other process moves the namespace on, meanwhile
        assert trips == [1, 2, 2, 2]  # a new namespace; then each missed once, and was made again
        with other.view("sk-trips") as space:
            assert space.counter == 8  # no change of either process lost
            assert [entry.seq for entry in space.journal] == [1, 2, 3, 4]
    finally:
        other.close()


def test_the_journal_times_ride_along_with_the_next_turn_else_go_alone(
    served: tuple[str, Counted, RedisStore], redis_server: RedisServer
) -> None:
    """Requests one after another take the times of the one before along with their own
    call; the last one's, with no request after it, the loop sends by themselves soon after."""
    url, counted, store = served
    with httpx.Client(base_url=url, headers={"Authorization": "Bearer sk-trips"}) as http:
        for n in range(20):
            body = {**CHAT, "messages": [{"role": "user", "content": f"new message {n}"}]}
            assert counted.of(lambda body=body: http.post("/v1/chat/completions", json=body)) == 1
    journal = f"{store.prefix}:ns:sk-trips:journal"
    deadline = time.monotonic() + 5
    while not redis_server.client().hexists(journal, "t:20"):
        assert time.monotonic() < deadline, "the last entry's times were never written"
        time.sleep(0.01)
    times = [redis_server.client().hget(journal, f"t:{n}") for n in range(1, 21)]
    assert all(orjson.loads(t)[0] > 0 for t in times)  # each entry's duration, written
    assert 1 <= counted.completions <= 5  # the last one's; a pause of the machine or a few


def test_times_still_waiting_when_the_server_stops_are_written(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipe, "RIDE_ALONG", 60.0)  # only the loop's end can send them
    settings = Settings(port=0, state_url=redis_server.url, state_prefix=RedisServer.new_prefix())
    app = create_app(settings)
    with BackgroundServer(app) as server:
        assert _post(server.url, "/v1/chat/completions", CHAT).status_code == 200
        journal = f"{settings.state_prefix}:ns:sk-trips:journal"
        assert not redis_server.client().hexists(journal, "t:1")
    assert orjson.loads(redis_server.client().hget(journal, "t:1"))[0] > 0
