"""One connection to Redis on an event loop, its calls pipelined: what a request's turn awaits.

Redis answers a connection's calls in the order they came, so each answer settles the oldest
call still waiting: no call has a connection of its own, and one more call in flight costs a
future. A call made while none is in flight is written at once; the calls made while others
are (the turns of requests that came together) wait for the loop's round of callbacks to end
and go to Redis in one write: Redis then reads them in one go and answers them in one write,
which costs it, and the kernel, far less than a read and a write per call. A call not answered
within the timeout breaks the connection (an answer still on its way must never settle another
call): every call waiting on it fails, and the next call opens a new one. A ``rediss://`` URL
(TLS) has no pipe; its calls wait, as the synchronous client's do.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from functools import partial
from typing import Any

import hiredis
import redis
from redis.connection import parse_url

__all__ = ["CONTENDED", "Pipes", "RedisPipe", "Turn", "pipe_target"]

#: How many of a namespace's next turns go one at a time after another process moved it under
#: one (:meth:`Pipes.contend`); and how many such namespaces a loop remembers.
CONTENDED = 64
CONTENDED_NAMES = 1024


def pipe_target(url: str) -> dict[str, Any] | None:
    """Where a pipe to ``url`` connects, and how it logs in; ``None`` for a URL it cannot
    serve (TLS)."""
    if not url.startswith(("redis://", "unix://")):
        return None
    target: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
    return target


class RedisPipe(asyncio.Protocol):
    """One connection (see the module's docstring). :meth:`open` it on the running loop."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._reader = hiredis.Reader()
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._transport: asyncio.Transport | None = None
        self._broken: BaseException | None = None
        #: Calls made in this round of the loop's callbacks while others were in flight, not
        #: written yet (:meth:`_send`).
        self._outgoing: list[bytes] = []

    @classmethod
    async def open(cls, target: dict[str, Any], timeout: float) -> RedisPipe:
        loop = asyncio.get_running_loop()
        pipe = cls(timeout)
        if "path" in target:
            connecting = loop.create_unix_connection(lambda: pipe, target["path"])
        else:
            connecting = loop.create_connection(lambda: pipe, target["host"], target["port"])
        try:
            await asyncio.wait_for(connecting, timeout)
        except (TimeoutError, OSError) as exc:
            raise redis.ConnectionError(f"connecting to Redis: {exc}") from None
        hello: list[Any] = []
        if target.get("password"):
            username = target.get("username")
            password = target["password"]
            hello.append(("AUTH", username, password) if username else ("AUTH", password))
        if target.get("db"):
            hello.append(("SELECT", target["db"]))
        for command in hello:
            await pipe.call(hiredis.pack_command(command))
        return pipe

    @property
    def usable(self) -> bool:
        return self._broken is None and self._transport is not None

    async def call(self, command: bytes) -> Any:
        """Send ``command`` (packed) and await its answer: an error answer is raised as
        redis-py raises it (``NoScriptError``, ``ResponseError``); a lost or silent Redis as
        its ``ConnectionError`` or ``TimeoutError``."""
        if self._broken is not None or self._transport is None:
            raise redis.ConnectionError("the connection to Redis was lost")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._waiting:  # none in flight: nothing to wait for
            self._transport.write(command)
        else:
            if not self._outgoing:  # the round's first call: the write goes when it ends
                loop.call_soon(self._send)
            self._outgoing.append(command)
        self._waiting.append(future)
        timer = loop.call_later(self.timeout, self._silent)
        try:
            got = await future
        finally:
            timer.cancel()
        if isinstance(got, hiredis.ReplyError):
            message = str(got)
            if message.startswith("NOSCRIPT"):
                raise redis.exceptions.NoScriptError(message)
            raise redis.ResponseError(message)
        return got

    def _send(self) -> None:
        outgoing, self._outgoing = self._outgoing, []
        if self._broken is None and self._transport is not None:  # (else its calls have failed)
            self._transport.write(outgoing[0] if len(outgoing) == 1 else b"".join(outgoing))

    def close(self) -> None:
        self._break(redis.ConnectionError("the connection to Redis was closed"))

    # -- asyncio.Protocol -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]  # a stream's (uvloop's too)

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        try:
            reader.feed(data)
            while (got := reader.gets()) is not False:
                if not self._waiting:  # an answer nobody asked for: the stream is not ours
                    raise redis.ConnectionError("Redis answered a call never made")
                future = self._waiting.popleft()
                if not future.done():
                    future.set_result(got)
        except (hiredis.ProtocolError, redis.ConnectionError) as exc:
            self._break(redis.ConnectionError(f"the connection to Redis broke: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._break(redis.ConnectionError(f"the connection to Redis was lost ({exc or 'closed'})"))

    # -- breaking -------------------------------------------------------------------------

    def _silent(self) -> None:
        self._break(redis.TimeoutError(f"Redis did not answer within {self.timeout:g} s"))

    def _break(self, error: BaseException) -> None:
        if self._broken is None:
            self._broken = error
        waiting, self._waiting = self._waiting, deque()
        for future in waiting:
            if not future.done():
                future.set_exception(error)
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()


class Pipes:
    """A store's pipes: one per event loop the server announced (:meth:`loop_starts`, on the
    loop; closed by :meth:`loop_ends`, before the loop is), opened when first needed and anew
    once broken or in a forked worker; and the namespaces whose turns a loop awaits, each
    with its line of turns (``redis_change.transact_soon`` says how they follow one another)."""

    def __init__(self, url: str, *, timeout: float) -> None:
        #: Where a pipe connects (``None``: a TLS URL, which has none).
        self.target = pipe_target(url)
        self.timeout = timeout
        self._local = threading.local()  # a thread's loop: its pipe, its turns

    def loop_starts(self) -> None:
        self._local.serving = asyncio.get_running_loop()
        self._local.turns = {}
        self._local.contended = {}

    def loop_ends(self) -> None:
        local = self._local
        local.serving = None
        pipe: RedisPipe | None = getattr(local, "pipe", None)
        if pipe is not None and local.pipe_loop is asyncio.get_running_loop():
            pipe.close()
        local.pipe = local.pipe_loop = local.opening = None

    def serving(self) -> bool:
        """Does the running loop have a pipe to await on?"""
        serving = getattr(self._local, "serving", None)
        return self.target is not None and serving is asyncio.get_running_loop()

    async def pipe(self) -> RedisPipe:
        """The running loop's pipe (:meth:`serving` says there is one to have). While it is
        being opened, the calls that come wait for that one opening, and go on in the order
        they came (a namespace's turns are sent in the order they were made)."""
        assert self.target is not None
        local = self._local
        loop = asyncio.get_running_loop()
        if getattr(local, "pipe_loop", None) is not loop or local.pipe_pid != os.getpid():
            local.pipe = local.opening = None
            local.pipe_loop, local.pipe_pid = loop, os.getpid()
        pipe: RedisPipe | None = local.pipe
        if pipe is not None and pipe.usable:
            return pipe
        opening: asyncio.Task[RedisPipe] | None = local.opening
        if opening is None:
            opening = local.opening = loop.create_task(RedisPipe.open(self.target, self.timeout))
            opening.add_done_callback(partial(_opened, local))
        return await asyncio.shield(opening)  # (a caller cancelled leaves it to the others)

    def queue(self, name: str) -> tuple[Turn | None, Turn]:
        """A new turn of the namespace ``name`` on the running loop, last in its line; and the
        turn before it, if one is still unsettled (other namespaces' turns go on). The turn
        goes ``alone`` (it does not follow the one before) while another process lately moved
        the namespace under one of its turns (:meth:`contend`)."""
        local = self._local
        turns: dict[str, Turn] | None = getattr(local, "turns", None)
        if turns is None:
            turns = local.turns = {}
            local.contended = {}
        turn = Turn(asyncio.get_running_loop())
        contended: dict[str, int] = local.contended
        if contended and name in contended:
            turn.alone = True
            contended[name] -= 1
            if contended[name] == 0:
                del contended[name]
        ahead = turns.get(name)
        turns[name] = turn
        return ahead, turn

    def contend(self, name: str) -> None:
        """Another process moved the namespace ``name`` under a turn of this loop: its next
        ``CONTENDED`` turns here go one at a time. Turns made on one another's changes would
        all be made again each time the other process writes in between; one at a time, a
        turn is made again only if the other process wrote since the one before."""
        contended: dict[str, int] = self._local.contended
        contended.pop(name, None)
        contended[name] = CONTENDED
        if len(contended) > CONTENDED_NAMES:
            del contended[next(iter(contended))]  # the least lately contended

    def leave(self, name: str, turn: Turn) -> None:
        """``turn`` settled: the one after it may go on."""
        turn.attempt = None
        if not turn.done.done():  # (cancelled if the one after it was, while it waited)
            turn.done.set_result(None)
        turns: dict[str, Turn] = self._local.turns
        if turns.get(name) is turn:
            del turns[name]


def _opened(local: threading.local, opening: asyncio.Task[RedisPipe]) -> None:
    local.opening = None
    if not opening.cancelled() and opening.exception() is None:
        local.pipe = opening.result()


class Turn:
    """One turn of a namespace a loop awaits: the change it sent, while on its way to Redis
    (what the next turn may be made on), and when it is settled."""

    __slots__ = ("alone", "attempt", "done", "missed")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        #: ``redis_change._Attempt``, while on its way (typed loosely: that module imports
        #: this one).
        self.attempt: Any = None
        self.done: asyncio.Future[None] = loop.create_future()
        #: Was it made again (its first try not written)?
        self.missed = False
        #: Made one at a time (on the change the one before wrote, not the one it sent)?
        self.alone = False
