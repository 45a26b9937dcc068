"""The event loop's pipe to a real ``redis-server``: calls pipelined on one connection, each
answer settling its own call; error answers raised as redis-py raises them; a silent Redis
breaks the pipe (no late answer ever settles another call) and a new pipe works again."""

from __future__ import annotations

import asyncio

import hiredis
import pytest
import redis

from mockserver.store.redis import RedisStore
from mockserver.store.redis.pipe import RedisPipe, pipe_target
from tests.support.redis_server import RedisServer


def _run(coroutine: object) -> object:
    return asyncio.run(coroutine)  # type: ignore[arg-type]


@pytest.mark.parametrize("over", ["tcp", "unix socket"])
def test_calls_in_flight_together_are_each_answered_with_their_own_answer(
    redis_server: RedisServer, over: str
) -> None:
    url = redis_server.url if over == "tcp" else redis_server.unix_url

    async def main() -> list[object]:
        target = pipe_target(url)
        assert target is not None
        assert ("path" in target) == (over == "unix socket")
        pipe = await RedisPipe.open(target, timeout=5)
        try:
            calls = [pipe.call(("ECHO", f"call {n}")) for n in range(200)]
            return list(await asyncio.gather(*calls))
        finally:
            pipe.close()

    assert _run(main()) == [f"call {n}".encode() for n in range(200)]


class _Wire:
    """A transport that keeps what each ``write`` was given."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        pass


def test_a_call_alone_is_written_at_once_and_calls_made_while_others_wait_go_in_one_write() -> None:
    asked = [("ECHO", f"call {n}") for n in range(5)]
    commands = [hiredis.pack_command(command) for command in asked]
    answers = b"".join(b"$6\r\ncall %d\r\n" % n for n in range(5))

    async def main() -> tuple[list[bytes], list[object]]:
        pipe, wire = RedisPipe(timeout=5), _Wire()
        pipe.connection_made(wire)  # type: ignore[arg-type]
        made = [asyncio.ensure_future(pipe.call(command)) for command in asked[:3]]
        await asyncio.sleep(0)  # all three made in this round: the first went at once
        assert wire.writes == [commands[0]]
        await asyncio.sleep(0)  # the round ended: the two that came while it waited, together
        assert wire.writes == [commands[0], commands[1] + commands[2]]
        pipe.data_received(answers[:36])  # none waiting again
        await asyncio.sleep(0)
        made.append(asyncio.ensure_future(pipe.call(asked[3])))
        await asyncio.sleep(0)
        assert wire.writes[2:] == [commands[3]]  # alone: at once, not at the round's end
        made.append(asyncio.ensure_future(pipe.call(asked[4])))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        pipe.data_received(answers[36:])
        return wire.writes, list(await asyncio.gather(*made))

    writes, answered = _run(main())  # type: ignore[misc]
    assert writes == [commands[0], commands[1] + commands[2], commands[3], commands[4]]
    assert answered == [b"call %d" % n for n in range(5)]


def test_calls_of_a_pipe_that_broke_before_their_round_ended_fail_and_are_never_sent() -> None:
    ping, echo = ("PING",), ("ECHO", "late")

    async def main() -> tuple[list[bytes], list[object]]:
        pipe, wire = RedisPipe(timeout=5), _Wire()
        pipe.connection_made(wire)  # type: ignore[arg-type]
        calls = [asyncio.ensure_future(pipe.call(command)) for command in (ping, echo)]
        await asyncio.sleep(0)  # PING written at once, ECHO waits for the round's end
        pipe.connection_lost(None)
        failed = await asyncio.gather(*calls, return_exceptions=True)
        await asyncio.sleep(0)
        return wire.writes, failed

    writes, failed = _run(main())  # type: ignore[misc]
    assert writes == [hiredis.pack_command(ping)]
    assert all(isinstance(error, redis.ConnectionError) for error in failed), failed


def test_error_answers_are_raised_and_the_pipe_goes_on(redis_server: RedisServer) -> None:
    async def main() -> None:
        target = pipe_target(redis_server.url)
        assert target is not None
        pipe = await RedisPipe.open(target, timeout=5)
        try:
            with pytest.raises(redis.exceptions.NoScriptError):
                await pipe.call(("EVALSHA", "0" * 40, 0))
            with pytest.raises(redis.ResponseError, match="unknown command"):
                await pipe.call(("NO-SUCH-COMMAND",))
            assert await pipe.call(("PING",)) == b"PONG"
            assert pipe.usable
        finally:
            pipe.close()

    _run(main())


def test_a_pipe_selects_the_urls_database(redis_server: RedisServer) -> None:
    key = f"{RedisServer.new_prefix()}:db"

    async def main() -> None:
        target = pipe_target(redis_server.url.rsplit("/", 1)[0] + "/3")
        assert target is not None
        pipe = await RedisPipe.open(target, timeout=5)
        try:
            await pipe.call(("SET", key, "in three"))
        finally:
            pipe.close()

    _run(main())
    three = redis.Redis.from_url(redis_server.url.rsplit("/", 1)[0] + "/3")
    zero = redis.Redis.from_url(redis_server.url)
    try:
        assert (three.get(key), zero.get(key)) == (b"in three", None)
    finally:
        three.close()
        zero.close()


def test_a_silent_redis_fails_every_waiting_call_and_a_new_pipe_works_again(
    redis_server: RedisServer,
) -> None:
    async def main() -> None:
        target = pipe_target(redis_server.url)
        assert target is not None
        pipe = await RedisPipe.open(target, timeout=0.3)
        redis_server.pause()
        try:
            calls = [pipe.call(("ECHO", str(n))) for n in range(3)]
            failed = await asyncio.gather(*calls, return_exceptions=True)
            assert all(isinstance(error, redis.TimeoutError) for error in failed), failed
            assert not pipe.usable
            with pytest.raises(redis.ConnectionError):  # broken: never reads a late answer
                await pipe.call(("PING",))
        finally:
            redis_server.resume()
        again = await RedisPipe.open(target, timeout=5)
        try:
            assert await again.call(("PING",)) == b"PONG"
        finally:
            again.close()

    _run(main())


def test_tls_urls_have_no_pipe() -> None:
    assert pipe_target("rediss://127.0.0.1:6380/0") is None
    unix = pipe_target("unix:///run/redis.sock?db=2")
    assert unix is not None
    assert (unix["path"], unix["db"]) == ("/run/redis.sock", 2)


def test_calls_that_come_while_the_pipe_opens_wait_for_that_one_and_go_on_in_order(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(redis_server.url, prefix=RedisServer.new_prefix())
    turns = store.turns
    assert turns is not None

    async def main() -> tuple[list[int], set[int], bool]:
        turns.loop_starts()
        try:
            order: list[int] = []
            pipes_got: set[int] = set()

            async def one(n: int) -> None:
                pipe = await turns.pipe()
                order.append(n)
                pipes_got.add(id(pipe))

            tasks = [asyncio.ensure_future(one(n)) for n in range(20)]
            await asyncio.sleep(0)  # all wait for the one opening
            tasks[0].cancel()  # the caller that started it gives up: the others still get it
            await asyncio.gather(*tasks, return_exceptions=True)
            return order, pipes_got, tasks[0].cancelled()
        finally:
            turns.loop_ends()
            store.close()

    order, pipes_got, cancelled = _run(main())  # type: ignore[misc]
    assert order == list(range(1, 20))
    assert len(pipes_got) == 1
    assert cancelled
