"""W9, timing under load: does a paced stream arrive when its scenario says, with many open?

``python -m benchmarks --timing`` starts ``mockserver serve`` on a scenario that paces every
stream (``ttft`` 300 ms, then one token every 20 ms: 50 tokens/s) and holds ``N`` streams open
at once, each connection asking for a new chat completion (a new message each, so every turn
is generated) as soon as its last one ended (the connections' first requests spread over one
stream's length, as a load test ramps up), for ``--duration`` seconds at each ``N`` of
``--levels``. The load generator (:class:`_Stream`, an ``asyncio.Protocol`` in this process)
stamps each event's arrival as it reads it (after a short unmeasured warm-up on the same
server), and the report compares it with the schedule:
event ``i`` of a stream is due ``ttft + i × 20 ms`` after its request was written.

Per level: time to first token against the 300 ms it should be, the lateness of every event
(arrival minus due) at p50, p99 and max, the inter-token gaps' p99 deviation from 20 ms, the
cores the server and the load generator used (one machine: a saturated generator makes every
number late too; the server's CPU per event, turns included, is the part the machine's load
moves least), and how long each of them waited for a core while runnable (the kernel's
run-queue delay, ``/proc/PID/task/*/schedstat``, in milliseconds per second of the level): a
slip while the server waited for a core was the machine's doing (other work on it, or the load
generator), not the server's. The level where the p99 lateness first passes ``SLIP_MS`` is
where the schedule starts to slip: below it a load test of an LLM app can trust the mock's
pacing.
"""

from __future__ import annotations

import asyncio
import resource
import tempfile
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from benchmarks.cpu import Usage, measure_cpu, own_waited, tree_waited
from benchmarks.servers import HOST, free_port, raw_request, spawn

__all__ = ["LEVELS", "SLIP_MS", "TimingResult", "run"]

TTFT = 0.3
GAP = 0.02
TOKENS = 40
#: Seconds over which the connections start, evenly (one stream's length): a load test ramps
#: its users up, and streams started at one instant would stay in step, each wave of turns
#: queueing behind itself.
RAMP = TTFT + GAP * TOKENS
#: The lateness at p99 past which the schedule is said to slip.
SLIP_MS = 10.0
LEVELS = (250, 500, 1000, 2000)
SCENARIO = f"""name: paced
description: W9's scenario, every stream paced as issue 40 says
latency: {{ttft: {TTFT}, chunk_interval: {GAP}}}
rules: []
"""


def _request(port: int, number: int) -> bytes:
    body = {
        "model": "gpt-4o-mini",
        "stream": True,
        "max_completion_tokens": TOKENS,
        "messages": [{"role": "user", "content": f"Tell me about load {number}."}],
    }
    return raw_request("POST", "/v1/chat/completions", orjson.dumps(body), port=port)


@dataclass
class TimingResult:
    """What one level measured, in seconds."""

    streams: int
    ttfts: array[float] = field(default_factory=lambda: array("d"))
    lateness: array[float] = field(default_factory=lambda: array("d"))
    gaps: array[float] = field(default_factory=lambda: array("d"))
    completed: int = 0
    failed: int = 0
    refused: int = 0


class _Stream(asyncio.Protocol):
    """One keep-alive connection asking for paced streams back to back; it stamps each
    ``data: {`` event as it reads it (an event split across two reads counts at the second)."""

    def __init__(
        self, port: int, number: int, result: TimingResult, deadline: float, *, start: float
    ) -> None:
        self.port, self.result, self.deadline = port, result, deadline
        self.number = number * 1_000_000  # distinct messages per connection
        self.start = start  # seconds after connecting before the first request (the ramp)
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.tail = b""
        self.sent_at = 0.0
        self.events = 0
        self.last = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        asyncio.get_running_loop().call_later(self.start, self._send)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.sent_at:
            self.result.failed += 1
        if not self.closed.done():
            self.closed.set_result(None)

    def _send(self) -> None:
        assert self.transport is not None
        if time.perf_counter() >= self.deadline:
            self.sent_at = 0.0
            self.transport.close()
            return
        self.number += 1
        self.tail, self.events = b"", 0
        self.sent_at = time.perf_counter()
        self.transport.write(_request(self.port, self.number))

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        seen = self.tail + data
        if (
            self.events == 0
            and seen.startswith(b"HTTP/1.1 ")
            and not seen.startswith(b"HTTP/1.1 200")
        ):
            self.result.refused += 1
            self.sent_at = 0.0
            assert self.transport is not None
            self.transport.close()
            return
        result = self.result
        for _ in range(seen.count(b"data: {") - self.tail.count(b"data: {")):
            due = self.sent_at + TTFT + GAP * self.events
            if self.events == 0:
                result.ttfts.append(now - self.sent_at)
            else:
                result.gaps.append(now - self.last)
            result.lateness.append(now - due)
            self.events += 1
            self.last = now
        self.tail = seen[-16:]
        if seen.endswith(b"0\r\n\r\n") and b"[DONE]" in seen[-64:]:
            result.completed += 1
            self.sent_at = 0.0
            self._send()


async def _level(port: int, streams: int, duration: float) -> TimingResult:
    loop = asyncio.get_running_loop()
    result = TimingResult(streams)
    deadline = time.perf_counter() + duration
    opened: list[_Stream] = []
    for number in range(streams):
        try:
            _, protocol = await loop.create_connection(
                lambda n=number: _Stream(port, n, result, deadline, start=RAMP * n / streams),  # type: ignore[misc]
                HOST,
                port,
            )
        except OSError:
            result.failed += 1
            continue
        opened.append(protocol)
    await asyncio.wait_for(asyncio.gather(*(p.closed for p in opened)), duration + 60)
    return result


def _quantile(values: array[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class Waited:
    """Milliseconds a second that the server and the load generator waited for a core, over
    a level's ``wall`` seconds."""

    server: float
    load: float
    wall: float


def _waits(server: int) -> tuple[float, float, float]:
    return time.perf_counter(), tree_waited(server), own_waited()


def _waited(server: int, since: tuple[float, float, float]) -> Waited:
    wall, server_s, load_s = (a - b for a, b in zip(_waits(server), since, strict=True))
    return Waited(server_s / wall * 1000, load_s / wall * 1000, wall)


def _row(result: TimingResult, usage: Usage, waited: Waited) -> str:
    ms = 1000.0
    late = result.lateness
    gap_dev = array("d", (abs(g - GAP) for g in result.gaps))
    per_event = usage.server * waited.wall / max(len(late), 1) * 1e6
    return (
        f"| {result.streams:>5} | {result.completed:>6} | {result.failed + result.refused:>4} "
        f"| {_quantile(result.ttfts, 0.5) * ms:7.1f} | {_quantile(result.ttfts, 0.99) * ms:7.1f} "
        f"| {_quantile(late, 0.5) * ms:6.1f} | {_quantile(late, 0.99) * ms:7.1f} "
        f"| {max(late, default=float('nan')) * ms:7.1f} | {_quantile(gap_dev, 0.99) * ms:6.1f} "
        f"| {usage.server:4.2f} | {per_event:5.1f} | {usage.load:4.2f} "
        f"| {waited.server:5.1f} | {waited.load:5.1f} |"
    )


def _raise_file_limit(streams: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, 2 * streams + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def run(*, levels: tuple[int, ...] = LEVELS, duration: float = 20.0) -> int:
    """Measure each level on a fresh server; print the table and where the schedule slips."""
    _raise_file_limit(max(levels))
    with tempfile.TemporaryDirectory(prefix="bench-w9-") as folder:
        scenario = Path(folder) / "paced.yaml"
        scenario.write_text(SCENARIO)
        print(
            f"W9: paced chat streams (ttft {TTFT * 1000:.0f} ms, {1 / GAP:.0f} tokens/s, "
            f"{TOKENS} tokens), a new message each, {duration:g} s a level; times in ms"
        )
        print(
            "| streams | done | lost | ttft p50 | ttft p99 | late p50 | late p99 | late max "
            "| gap dev p99 | server cores | server µs/event | load cores | server waited "
            "| load waited |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        slipped: int | None = None
        for streams in levels:
            port = free_port()
            ready = raw_request("GET", "/v1/models", b"", port=port)
            server = spawn("mockserver", ready, port=port, args=("--scenario", str(scenario)))
            try:
                # Warm up, unmeasured: the first turns pay the lazy imports and first-use caches
                # (~50 ms), which would make the first wave of every level late.
                asyncio.run(_level(server.port, min(streams, 16), 1.5))
                since = _waits(server.process.pid)
                result, usage = measure_cpu(
                    lambda p=server.port, n=streams: asyncio.run(_level(p, n, duration)),  # type: ignore[misc]
                    server=server.process.pid,
                    redis=None,
                    load_in_process=True,
                )
                waited = _waited(server.process.pid, since)
            finally:
                server.stop()
            print(_row(result, usage, waited), flush=True)
            if result.failed or result.refused or not result.lateness:
                print(
                    f"W9 could not measure {streams} streams: {result.failed} lost, "
                    f"{result.refused} refused, {len(result.lateness)} events"
                )
                return 1
            if slipped is None and _quantile(result.lateness, 0.99) * 1000 > SLIP_MS:
                slipped = streams
        if slipped is None:
            print(f"The schedule held (p99 lateness ≤ {SLIP_MS:g} ms) at every level.")
        else:
            print(f"The schedule slips (p99 lateness > {SLIP_MS:g} ms) from {slipped} streams.")
    return 0
