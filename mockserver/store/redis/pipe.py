"""Awaited turns (``RedisStore.turns``, a device of ``pipelined=True``): a change made by
``change.py``'s protocol, its round trip awaited on the event loop, so the server answers other
requests meanwhile.

Each serving loop has one pipelined connection to Redis (:class:`RedisPipe`): Redis answers a
connection's calls in order, so each answer settles the oldest call waiting, and the calls made
while others are in flight go in one write. A namespace's turns go in the order they come: one
made while the one before is on its way is made on the state that one writes (its version is
named in advance) and sent after it; if that one is not written, neither is this one, which is
made again. A turn waits for the one before to be settled if that one changed stored objects,
or while another process lately wrote the namespace too (``CONTENDED``). A ``rediss://`` URL
(TLS) has no pipe: its store has no awaited turns.

The journal's times, known once an answer is sent, ride along with the loop's next turn (the
script writes them first); if none comes within ``RIDE_ALONG``, the loop sends them in a call of
their own, awaited by no request.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

import hiredis
import redis
from redis.connection import parse_url

from mockserver.store.model import Namespace
from mockserver.store.redis.change import Attempt, Changes
from mockserver.store.redis.client import StateUnavailableError

__all__ = ["CONTENDED", "RIDE_ALONG", "PipelinedTurns", "RedisPipe", "pipe_target"]

T = TypeVar("T")
#: How many of a namespace's next turns go one at a time after another process moved it under
#: one; and how many such namespaces a loop remembers.
CONTENDED = 64
CONTENDED_NAMES = 1024
#: How long completed journal entries' times wait for a turn to take them along.
RIDE_ALONG = 0.02


def pipe_target(url: str) -> dict[str, Any] | None:
    """Where a pipe to ``url`` connects, and how it logs in; ``None`` for TLS."""
    if not url.startswith(("redis://", "unix://")):
        return None
    target: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
    return target


class RedisPipe(asyncio.Protocol):
    """One pipelined connection (:meth:`open` it on the loop). A call not answered within the
    timeout breaks it (an answer still on its way must never settle another call): every call
    waiting fails."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._reader = hiredis.Reader()
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._transport: asyncio.Transport | None = None
        self._broken: BaseException | None = None
        self._outgoing: list[bytes] = []  # made in this round of the loop while others flew

    @classmethod
    async def open(cls, target: dict[str, Any], timeout: float) -> RedisPipe:
        loop, pipe = asyncio.get_running_loop(), cls(timeout)
        if "path" in target:
            connecting = loop.create_unix_connection(lambda: pipe, target["path"])
        else:
            connecting = loop.create_connection(lambda: pipe, target["host"], target["port"])
        try:
            await asyncio.wait_for(connecting, timeout)
        except (TimeoutError, OSError) as exc:
            raise redis.ConnectionError(f"connecting to Redis: {exc}") from None
        if target.get("password"):
            username, password = target.get("username"), target["password"]
            await pipe.call(("AUTH", username, password) if username else ("AUTH", password))
        if target.get("db"):
            await pipe.call(("SELECT", target["db"]))
        return pipe

    @property
    def usable(self) -> bool:
        return self._broken is None and self._transport is not None

    async def call(self, command: tuple[object, ...]) -> Any:
        """``command``'s answer; an error answer, a lost or a silent Redis raised as redis-py
        raises them."""
        if self._transport is None or self._broken is not None:
            raise redis.ConnectionError("the connection to Redis was lost")
        packed = hiredis.pack_command(command)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._waiting:  # none in flight: nothing to wait for
            self._transport.write(packed)
        else:
            if not self._outgoing:  # the round's first call: the write goes when it ends
                loop.call_soon(self._send)
            self._outgoing.append(packed)
        self._waiting.append(future)
        timer = loop.call_later(self.timeout, self._silent)
        try:
            got = await future
        finally:
            timer.cancel()
        if isinstance(got, hiredis.ReplyError):
            noscript = str(got).startswith("NOSCRIPT")
            raise (redis.exceptions.NoScriptError if noscript else redis.ResponseError)(str(got))
        return got

    def _send(self) -> None:
        outgoing, self._outgoing = self._outgoing, []
        if self.usable:  # (else its calls have failed)
            self._transport.write(b"".join(outgoing))  # type: ignore[union-attr]

    def close(self) -> None:
        self._break(redis.ConnectionError("the connection to Redis was closed"))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # a stream's (uvloop's too)

    def data_received(self, data: bytes) -> None:
        try:
            self._reader.feed(data)
            while (got := self._reader.gets()) is not False:
                if not self._waiting:  # an answer nobody asked for: the stream is not ours
                    raise redis.ConnectionError("Redis answered a call never made")
                future = self._waiting.popleft()
                if not future.done():
                    future.set_result(got)
        except (hiredis.ProtocolError, redis.ConnectionError) as exc:
            self._break(redis.ConnectionError(f"the connection to Redis broke: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._break(redis.ConnectionError(f"the connection to Redis was lost ({exc or 'closed'})"))

    def _silent(self) -> None:
        self._break(redis.TimeoutError(f"Redis did not answer within {self.timeout:g} s"))

    def _break(self, error: BaseException) -> None:
        self._broken = self._broken or error
        waiting, self._waiting = self._waiting, deque()
        for future in waiting:
            if not future.done():
                future.set_exception(error)
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()


@dataclass(slots=True)
class Turn:
    """One turn of a namespace a loop awaits: made one at a time (``alone``: on the change the
    one before wrote, not the one it sent)? The change it sent, while on its way (what the next
    turn may be made on); was it made again; and when it is settled."""

    alone: bool
    attempt: Attempt[Any] | None = None
    missed: bool = False
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class PipelinedTurns:
    """A store's awaited turns: on each event loop the server announced (:meth:`loop_starts`,
    on the loop; :meth:`loop_ends` before it closes) a pipe, opened when first needed and anew
    once broken, each namespace's line of turns, and the journal's times riding along."""

    def __init__(self, changes: Changes, target: dict[str, Any]) -> None:
        self.changes, self.client, self.target = changes, changes.client, target
        self._local = threading.local()  # a thread's loop: its pipe, its turns

    async def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``Store.transact``, awaited; on a loop the server did not announce, waited for."""
        local = self._local
        loop = asyncio.get_running_loop()
        if getattr(local, "serving", None) is not loop:
            return self.changes.transact(name, work)
        contended: dict[str, int] = local.contended
        turn = Turn(alone=contended.get(name, 0) > 0)
        if turn.alone:
            contended[name] -= 1
        ahead = local.turns.get(name)
        local.turns[name] = turn
        try:
            return await self._turn(name, work, ahead, turn)
        finally:
            turn.attempt = None
            if not turn.done.done():  # (cancelled if the one after it was, while it waited)
                turn.done.set_result(None)
            if local.turns.get(name) is turn:
                del local.turns[name]

    async def _turn(
        self, name: str, work: Callable[[Namespace], T], ahead: Turn | None, turn: Turn
    ) -> T:
        changes, mine = self.changes, f"{self.client.origin}.".encode()
        known: tuple[bytes, bytes] | None = None  # what Redis answered a try that missed
        attempt: Attempt[T] | None = None
        while True:
            before = ahead.attempt if ahead is not None else None
            if before is not None and not before.shelved and not turn.alone:
                on = (before.state, before.version)
            else:
                if ahead is not None:
                    await ahead.done
                    if ahead.missed:  # made again after this turn's try: what it wrote is newer
                        known = None
                    ahead = before = None
                on = known or changes.known(name)
            riding, self._local.riding = self._local.riding, []
            attempt = changes.begin(
                name, work, on, after=attempt, anew=before is not None, riding=riding
            )
            turn.attempt = attempt
            got = await self.run("change", attempt.args)
            turn.attempt = None
            if changes.settle(attempt, got):
                return attempt.result()
            turn.missed, known = True, attempt.known
            if not known[1].startswith(mine):  # another process wrote it meanwhile
                self._contend(name)
            if attempt.pause:
                await asyncio.sleep(attempt.pause)

    async def run(self, call: str, args: list[object]) -> Any:
        """``RedisClient.run``, awaited on this loop's pipe."""
        command = self.client.command(call, args)
        with self.client.step():
            pipe = await self.pipe()
            try:
                return await pipe.call(command)
            except redis.exceptions.NoScriptError:  # Redis restarted, or its scripts flushed
                await pipe.call(("SCRIPT", "LOAD", self.client.source))
                return await pipe.call(command)

    def ride(self, batch: list[object]) -> bool:
        """Completed entries' times (escaped name, seq, times each) taken along with this
        loop's next turn, or sent by the loop; ``False`` off a loop the server announced."""
        local = self._local
        loop = getattr(local, "serving", None)  # (set on this thread while its loop serves)
        if loop is None:
            return False
        if not local.riding:  # (a turn takes the list, and leaves a new one)
            loop.call_later(RIDE_ALONG, self._ridden, local.riding)
        local.riding += batch
        return True

    def _ridden(self, riding: list[object]) -> None:
        local = self._local
        if local.riding is riding:  # no turn took them along
            local.riding = []
            task = asyncio.get_running_loop().create_task(self._complete(riding))
            local.sending.add(task)  # (a task nobody holds may be collected unfinished)
            task.add_done_callback(local.sending.discard)

    async def _complete(self, riding: list[object]) -> None:
        with suppress(StateUnavailableError):  # the outage is logged once, where it began
            await self.run("complete", [len(riding) // 3, *riding])

    def loop_starts(self) -> None:
        local = self._local
        local.serving = asyncio.get_running_loop()
        local.turns, local.contended, local.riding, local.sending = {}, {}, [], set()
        local.pipe = local.opening = None

    def loop_ends(self) -> None:
        """The times still waiting written (waited for), the pipe closed."""
        local = self._local
        if local.riding:
            self.changes.complete(local.riding)
        if local.pipe is not None:
            local.pipe.close()
        local.serving = local.pipe = local.opening = None
        local.riding = []

    async def pipe(self) -> RedisPipe:
        """The serving loop's pipe. The calls that come while it is being opened wait for that
        one opening, and go on in the order they came (a namespace's turns in their order)."""
        local = self._local

        async def opened() -> RedisPipe:
            try:
                pipe = local.pipe = await RedisPipe.open(self.target, self.client.timeout)
                return pipe
            finally:
                local.opening = None

        if local.pipe is not None and local.pipe.usable:
            return local.pipe  # type: ignore[no-any-return]
        local.opening = local.opening or asyncio.create_task(opened())
        return await asyncio.shield(local.opening)  # (one cancelled leaves it to the others)

    def _contend(self, name: str) -> None:
        """Another process moved the namespace under a turn: its next ``CONTENDED`` turns here
        go one at a time (made on one another's, all would be made again at each such move)."""
        contended: dict[str, int] = self._local.contended
        contended.pop(name, None)
        contended[name] = CONTENDED
        if len(contended) > CONTENDED_NAMES:
            del contended[next(iter(contended))]  # the least lately contended
