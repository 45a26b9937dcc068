"""The bundled load generator: raw asyncio sockets, HTTP/1.1 keep-alive, one request in flight
per connection, for a bounded time.

It exists for machines without ``wrk``. It is an ``asyncio.Protocol`` that parses just enough
HTTP (status line, ``content-length`` or chunked framing) to know where a response ends, so on a
loopback it is not the bottleneck of a single-process Python server (httpx would be).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["LoadResult", "Target", "run_load"]

#: Builds the raw bytes of the ``n``-th request a connection sends.
RequestMaker = Callable[[int], bytes]


@dataclass(frozen=True, slots=True)
class Target:
    host: str
    port: int


@dataclass(slots=True)
class LoadResult:
    """What a run measured: completed responses, their latencies and times to first body byte."""

    seconds: float = 0.0
    completed: int = 0
    errors: int = 0
    non_2xx: int = 0
    latencies: list[float] = field(default_factory=list)
    first_bytes: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0

    def percentile(self, q: float, *, first_byte: bool = False) -> float:
        values = sorted(self.first_bytes if first_byte else self.latencies)
        if not values:
            return float("nan")
        return values[min(len(values) - 1, int(q * len(values)))]


class _Connection(asyncio.Protocol):
    """One keep-alive connection that sends requests back to back until told to stop."""

    def __init__(self, make: RequestMaker, result: LoadResult, deadline: float, number: int):
        self.make = make
        self.result = result
        self.deadline = deadline
        self.sent = number * 1_000_000  # distinct request numbers per connection
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._reset()

    def _reset(self) -> None:
        self._buffer.clear()
        self._status = 0
        self._length = -1  # content-length, or -1 while headers are incomplete
        self._chunked = False
        self._body_at = 0  # where the body starts (chunked: the next chunk header)
        self._started = 0.0
        self._first_byte = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self._send()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._started:  # a response was cut short
            self.result.errors += 1
        if not self.closed.done():
            self.closed.set_result(None)

    def _send(self) -> None:
        assert self.transport is not None
        if time.perf_counter() >= self.deadline:
            self._started = 0.0
            self.transport.close()
            return
        self._reset()
        self.sent += 1
        self._started = time.perf_counter()
        self.transport.write(self.make(self.sent))

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        if self._status == 0 and not self._parse_head():
            return
        if not self._first_byte and len(buffer) > self._body_at:
            self._first_byte = time.perf_counter()
        if self._chunked:
            if not self._chunks_done():
                return
        elif len(buffer) - self._body_at < self._length:
            return
        self._finish()

    def _parse_head(self) -> bool:
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self._buffer[:end]).decode("latin-1").split("\r\n")
        self._status = int(head[0].split(" ", 2)[1])
        self._length = 0
        for line in head[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                self._length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                self._chunked = True
        self._body_at = end + 4
        return True

    def _chunks_done(self) -> bool:
        """Walk complete chunks; true once the zero-size chunk and its CRLF have arrived."""
        buffer = self._buffer
        while True:
            line_end = buffer.find(b"\r\n", self._body_at)
            if line_end < 0:
                return False
            size = int(bytes(buffer[self._body_at : line_end]).split(b";")[0], 16)
            chunk_end = line_end + 2 + size + 2
            if len(buffer) < chunk_end:
                return False
            self._body_at = chunk_end
            if size == 0:
                return True

    def _finish(self) -> None:
        now = time.perf_counter()
        result = self.result
        if 200 <= self._status < 300:
            result.completed += 1
            result.latencies.append(now - self._started)
            result.first_bytes.append(self._first_byte - self._started)
        else:
            result.non_2xx += 1
        self._started = 0.0
        self._send()


async def _run(target: Target, make: RequestMaker, connections: int, duration: float) -> LoadResult:
    loop = asyncio.get_running_loop()
    result = LoadResult()
    started = time.perf_counter()
    deadline = started + duration
    protocols: list[_Connection] = []
    for number in range(connections):
        try:
            _, protocol = await loop.create_connection(
                lambda n=number: _Connection(make, result, deadline, n),  # type: ignore[misc]
                target.host,
                target.port,
            )
        except OSError:
            result.errors += 1
            continue
        protocols.append(protocol)
    grace = duration + 30.0  # a response in flight at the deadline may still finish
    await asyncio.wait_for(asyncio.gather(*(p.closed for p in protocols)), grace)
    result.seconds = time.perf_counter() - started
    return result


def run_load(
    target: Target, make: RequestMaker, *, connections: int, duration: float
) -> LoadResult:
    """Drive ``target`` with ``connections`` keep-alive connections for ``duration`` seconds."""
    return asyncio.run(_run(target, make, connections, duration))
