"""A namespace's turns awaited on one event loop (``store.turns``): the next one is made on the
change the one before sends, and sent before that one is written, so a namespace's turns are
in flight together; in the order they came, none lost or counted twice when the one before
was not written (another process moved the namespace meanwhile), after which they go one at a
time for a while; and a turn after one that changed stored objects waits for it to be written
(it would read those objects as they were)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from mockserver.store.model import Namespace
from mockserver.store.redis import RedisStore
from mockserver.store.redis.pipe import CONTENDED
from mockserver.store.stored import StoredChatCompletion
from tests.support.redis_server import RedisServer

NAME = "sk-turns"


class InFlight:
    """The store's awaited script calls: how many were on their way to Redis at once, at most."""

    def __init__(self, store: RedisStore) -> None:
        self.now = self.most = self.calls = 0
        turns = store.turns
        assert turns is not None
        plain = turns.run

        async def run(script: str, args: list[object]) -> Any:
            self.now += 1
            self.calls += 1
            self.most = max(self.most, self.now)
            try:
                return await plain(script, args)
            finally:
                self.now -= 1

        turns.run = run  # type: ignore[method-assign]


@pytest.fixture
def store(redis_server: RedisServer) -> Iterator[RedisStore]:
    store = RedisStore(redis_server.url, prefix=RedisServer.new_prefix())
    store.transact(NAME, _count)  # known to this process: its turns take one trip
    yield store
    store.close()


def _serving(store: RedisStore, turns: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """``turns()`` on a loop the store serves on, as the server's is (it has a pipe)."""

    async def main() -> Any:
        assert store.turns is not None
        store.turns.loop_starts()
        try:
            return await turns()
        finally:
            store.turns.loop_ends()

    return asyncio.run(main())


def _count(space: Namespace) -> int:
    return space.next_counter()


def _soon(store: RedisStore, name: str, work: Callable[[Namespace], Any]) -> Any:
    assert store.turns is not None
    return store.turns.transact(name, work)


def test_a_namespaces_turns_are_in_flight_together_and_written_in_the_order_they_came(
    store: RedisStore,
) -> None:
    flight = InFlight(store)

    async def turns() -> list[int]:
        return list(await asyncio.gather(*(_soon(store, NAME, _count) for _ in range(8))))

    assert _serving(store, turns) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert flight.most == 8  # all on their way at once (one at a time, before: 1)
    assert flight.calls == 8  # each written by its one try
    with store.view(NAME) as space:
        assert space.counter == 9


def test_turns_made_on_a_change_another_process_beat_are_made_again_none_lost(
    store: RedisStore, redis_server: RedisServer
) -> None:
    other = RedisStore(redis_server.url, prefix=store.prefix)  # another process, same Redis
    flight = InFlight(store)
    seen: list[int] = []

    def first(space: Namespace) -> int:
        if not seen:  # before its try is sent, the other process moves the namespace on
            seen.append(other.transact(NAME, _count))
        return space.next_counter()

    async def turns() -> list[int]:
        return list(
            await asyncio.gather(
                _soon(store, NAME, first),
                *(_soon(store, NAME, _count) for _ in range(4)),
            )
        )

    try:
        got = _serving(store, turns)
    finally:
        other.close()
    assert seen == [2]
    assert got == [3, 4, 5, 6, 7]  # in the order they came, after the other process's change
    assert flight.most >= 5  # the four after the first were sent on its change
    assert flight.calls == 10  # each missed once, and was made again (on the one before's)
    with store.view(NAME) as space:
        assert space.counter == 7  # no change lost, none counted twice


def test_a_turn_after_one_that_changed_stored_objects_waits_for_it(store: RedisStore) -> None:
    flight = InFlight(store)

    def keep(space: Namespace) -> int:
        number = space.next_counter()
        found = space.chat_completions.get("kept")
        kept = [] if found is None else found.messages
        body = {"id": "kept"}
        space.chat_completions.put("kept", StoredChatCompletion(body, [*kept, {"n": number}], {}))
        return number

    async def turns() -> list[int]:
        return list(await asyncio.gather(*(_soon(store, NAME, keep) for _ in range(4))))

    assert _serving(store, turns) == [2, 3, 4, 5]
    with store.view(NAME) as space:
        stored = space.chat_completions.get("kept")
        assert stored is not None
        assert stored.messages == [{"n": 2}, {"n": 3}, {"n": 4}, {"n": 5}]  # none lost
    assert flight.most == 1  # each waited for the one before to be written


def test_while_another_process_writes_the_namespace_too_its_turns_here_go_one_at_a_time(
    store: RedisStore, redis_server: RedisServer
) -> None:
    other = RedisStore(redis_server.url, prefix=store.prefix)
    flight = InFlight(store)

    def moved(space: Namespace) -> int:
        if space.counter == 1:  # before its first try is sent (made again on 2: not then)
            other.transact(NAME, _count)
        return space.next_counter()

    async def turns() -> tuple[int, int]:
        await _soon(store, NAME, moved)  # missed once: the other process wrote
        flight.most = 0
        await asyncio.gather(*(_soon(store, NAME, _count) for _ in range(8)))
        alone = flight.most
        for _ in range(CONTENDED - 8):  # the rest of the turns that go one at a time
            await _soon(store, NAME, _count)
        flight.most = 0
        await asyncio.gather(*(_soon(store, NAME, _count) for _ in range(8)))
        return alone, flight.most

    try:
        assert _serving(store, turns) == (1, 8)
    finally:
        other.close()
    with store.view(NAME) as space:
        assert space.counter == 1 + 2 + CONTENDED + 8
