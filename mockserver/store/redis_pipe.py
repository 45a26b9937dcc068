"""One connection to Redis on an event loop, its calls pipelined: what a request's turn awaits.

Redis answers a connection's calls in the order they came, so each answer settles the oldest
call still waiting: no call has a connection of its own, and one more call in flight costs a
future and a write. A call not answered within the timeout breaks the connection (an answer
still on its way must never settle another call): every call waiting on it fails, and the next
call opens a new one. A ``rediss://`` URL (TLS) has no pipe; its calls wait, as the synchronous
client's do.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import hiredis
import redis
from redis.connection import parse_url

__all__ = ["RedisPipe", "pipe_target"]


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
        self._waiting.append(future)
        self._transport.write(command)
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
