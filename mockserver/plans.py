"""When a stream's frames and a body go, and what fault cuts them: the plans (pure), the one
timeline a paced stream follows, and the pacer that sleeps, cuts and aborts on it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Sequence
from typing import TYPE_CHECKING

from mockserver import ids
from mockserver.errors import StreamAborted
from mockserver.render import ndjson, sse
from mockserver.values import value_class

if TYPE_CHECKING:  # read, never built here: start-up does not import the scenario models
    from mockserver.scenario.behaviour import FaultSpec, LatencySpec

__all__ = [
    "IMMEDIATE",
    "NDJSON_FRAMING",
    "REAL_TIME",
    "SSE_FRAMING",
    "UNPACED",
    "BodyPlan",
    "Framing",
    "PacedStream",
    "Pacer",
    "Step",
    "StreamPlan",
    "deliver_body",
    "paced",
    "plan_body",
    "plan_stream",
    "timeline",
]

# Streams and timing. Planning is pure (decided from the seed); ``timeline`` is the one function
# in the project that decides when a stream writes, cuts or aborts.


@value_class
class StreamPlan:
    """What happens to a list of frames on the socket."""

    #: Seconds to wait before each frame (empty: write everything at once).
    waits: tuple[float, ...] = ()
    delay: float = 0.0
    #: ``(kind, after)``: after ``after`` frames, ``disconnect`` | ``stall`` | ``malformed`` |
    #: ``error`` | ``no_done``.
    cut: tuple[str, int] | None = None
    stall_for: float = 0.0
    keepalive: float | None = None

    @property
    def unpaced(self) -> bool:
        """Nothing to time or break: the stream can be written in one go."""
        return not self.waits and not self.delay and self.cut is None


#: The plan of a stream with no latency and no fault (one is shared: plans are values).
UNPACED = StreamPlan()


def _interval(latency: LatencySpec, *, frames: int, tokens: int) -> float:
    if latency.chunk_interval is not None:
        return latency.chunk_interval
    if latency.tokens_per_second:
        return tokens / latency.tokens_per_second / max(frames - 1, 1)
    return 0.0


def plan_stream(
    latency: LatencySpec | None,
    fault: FaultSpec | None,
    *,
    frames: int,
    tokens: int,
    seed: int,
) -> StreamPlan:
    """Waits per frame (``ttft`` first, then an even share of ``tokens`` at the rate, with
    jitter seeded by the turn's ``seed``) and the first scripted cut."""
    if latency is None and fault is None:
        return UNPACED
    waits: tuple[float, ...] = ()
    delay = 0.0
    if latency is not None and latency.paced:
        rng = ids.derive_rng(seed, "pacing")
        delay = latency.delay
        gap = _interval(latency, frames=frames, tokens=tokens)
        jitter = latency.jitter
        waits = tuple(
            (latency.ttft if i == 0 else gap) * (1 + rng.uniform(-jitter, jitter))
            for i in range(frames)
        )
    cut = _first_cut(fault)
    return StreamPlan(
        waits=waits,
        delay=delay,
        cut=cut,
        stall_for=fault.stall_for if fault else 0.0,
        keepalive=fault.keepalive if fault else None,
    )


def _first_cut(fault: FaultSpec | None) -> tuple[str, int] | None:
    if fault is None:
        return None
    cuts = [
        (kind, after)
        for kind, after in (
            ("disconnect", fault.disconnect_after),
            ("stall", fault.stall_after),
            ("malformed", fault.malformed_after),
            ("error", fault.error_after),
        )
        if after is not None
    ]
    if cuts:
        return min(cuts, key=lambda c: c[1])
    return ("no_done", 0) if fault.no_done else None


@value_class
class Framing:
    """What a transport sends for the parts of a stream that are not its events: a keep-alive
    while a stream waits (``None``: nothing, a WebSocket keeps itself alive), and an event
    broken for a ``malformed`` fault."""

    keepalive: bytes | None
    malformed: Callable[[bytes], bytes]


#: Server-sent events: a comment line keeps the connection alive.
SSE_FRAMING = Framing(sse.comment("keep-alive"), sse.malformed)
#: Newline-delimited JSON (Ollama's streams): nothing keeps it alive (a blank line is no JSON
#: object, and Ollama's client would fail on it).
NDJSON_FRAMING = Framing(None, ndjson.malformed)


@value_class
class Pacer:
    """The clock a stream is timed by and the sleep it waits with.

    A stream keeps to its schedule: each frame is due at its planned offset from the stream's
    start, and each wait lasts until then. A wake-up that comes late under load is made up by
    the next wait, instead of pushing every later frame back by it (a sleep per gap would add
    the event loop's lateness up over the stream)."""

    now: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]


#: Real time: the process's monotonic clock and the event loop's sleep.
REAL_TIME = Pacer(ids.monotonic, asyncio.sleep)


#: What a stream's timeline gives its driver at each step: bytes to write now, or how many
#: seconds to wait before asking for the next step.
Step = bytes | float


def _waits(
    due: float, keepalive: float | None, framing: Framing, now: float
) -> Generator[Step, float, float]:
    """Wait until ``due``, with the framing's keep-alive every ``keepalive`` seconds meanwhile;
    the clock's time once it is due."""
    while (left := due - now) > 0:
        if keepalive is not None and left > keepalive:
            now = yield keepalive
            if framing.keepalive is not None:
                now = yield framing.keepalive
            continue
        return (yield left)
    return now


def timeline(
    frames: Sequence[bytes],
    plan: StreamPlan,
    *,
    tail: Sequence[bytes],
    error_frames: Sequence[bytes],
    framing: Framing,
    now: float,
) -> Generator[Step, float, None]:
    """What a stream does, step by step, from its start at ``now``: ``frames`` then ``tail``
    (the terminator) as ``plan`` says, each frame at its offset from the start (see
    :class:`Pacer`). Each step is sent the clock's time when the driver takes the next one.

    ``error_frames`` replace the rest of the stream at an ``error`` cut; a ``disconnect``
    raises :class:`StreamAborted`. A delay and a stall last their whole length from when they
    begin, however late that is. Both drivers, :func:`paced` (a sleep per wait) and the
    server's one timer for every paced stream (``http/pacing.py``), follow this one timeline.
    """
    kind, after = plan.cut or ("", len(frames) + 1)
    keepalive = plan.keepalive
    due = now + plan.delay
    now = yield from _waits(due, keepalive, framing, now)
    for index, frame in enumerate(frames):
        if index == after:
            if kind == "disconnect":
                raise StreamAborted(f"scripted disconnect after {after} events")
            if kind == "error":
                yield from _each(error_frames)
                return
            if kind == "stall":
                due = max(due, now) + plan.stall_for
                now = yield from _waits(due, keepalive, framing, now)
            if kind == "malformed":
                now = yield framing.malformed(frame)
        if plan.waits:
            due += plan.waits[index]
            now = yield from _waits(due, keepalive, framing, now)
        now = yield frame
    if kind == "disconnect" and after >= len(frames):
        raise StreamAborted("scripted disconnect at the end of the stream")
    if kind != "no_done":
        yield from _each(tail)


def _each(frames: Sequence[bytes]) -> Generator[Step, float, None]:
    """``frames`` as steps, one by one (``yield from`` a list would pass the driver's clock
    on to the list's iterator, which takes none)."""
    for frame in frames:  # noqa: UP028 (the docstring says why)
        yield frame


@value_class
class PacedStream:
    """A stream to be written as its plan says: its frames, its terminator (``tail``), the
    frames a scripted ``error`` sends instead of the rest, and how its transport frames what is
    not an event."""

    frames: Sequence[bytes]
    plan: StreamPlan
    tail: Sequence[bytes] = ()
    error_frames: Sequence[bytes] = ()
    framing: Framing = SSE_FRAMING

    def timeline(self, now: float) -> Generator[Step, float, None]:
        """The stream's :func:`timeline`, started at ``now``."""
        return timeline(
            self.frames,
            self.plan,
            tail=self.tail,
            error_frames=self.error_frames,
            framing=self.framing,
            now=now,
        )

    def paced(self, pacer: Pacer = REAL_TIME) -> AsyncIterator[bytes]:
        """The stream's frames, each yielded when due (:func:`paced`)."""
        return _driven(self.timeline(pacer.now()), pacer)


async def paced(
    frames: Sequence[bytes],
    plan: StreamPlan,
    *,
    tail: Sequence[bytes],
    error_frames: Sequence[bytes],
    pacer: Pacer = REAL_TIME,
    framing: Framing = SSE_FRAMING,
) -> AsyncIterator[bytes]:
    """Yield ``frames`` then ``tail`` (the terminator) as ``plan`` says (see :func:`timeline`),
    sleeping on ``pacer`` between them."""
    steps = timeline(
        frames, plan, tail=tail, error_frames=error_frames, framing=framing, now=pacer.now()
    )
    async for frame in _driven(steps, pacer):
        yield frame


async def _driven(steps: Generator[Step, float, None], pacer: Pacer) -> AsyncIterator[bytes]:
    """A timeline's bytes, a sleep on ``pacer`` for each of its waits."""
    step = next(steps, None)
    while step is not None:
        if isinstance(step, bytes):
            yield step
        else:
            await pacer.sleep(step)
        try:
            step = steps.send(pacer.now())
        except StopIteration:
            return


@value_class
class BodyPlan:
    """What happens to a non-streamed answer: a delay, a reset, a truncated body."""

    delay: float = 0.0
    reset: bool = False
    truncate: float | None = None

    @property
    def plain(self) -> bool:
        return not self.delay and not self.reset and self.truncate is None


#: The plan of an answer with no latency and no fault.
IMMEDIATE = BodyPlan()


def plan_body(latency: LatencySpec | None, fault: FaultSpec | None, *, seed: int) -> BodyPlan:
    if latency is None and fault is None:
        return IMMEDIATE
    delay = 0.0
    if latency is not None and latency.delay:
        rng = ids.derive_rng(seed, "pacing")
        delay = latency.delay * (1 + rng.uniform(-latency.jitter, latency.jitter))
    return BodyPlan(
        delay=delay, reset=bool(fault and fault.reset), truncate=fault.truncate if fault else None
    )


async def deliver_body(body: bytes, plan: BodyPlan, *, pacer: Pacer = REAL_TIME) -> bytes:
    """Wait as planned, then the bytes to send (cut short for ``truncate``)."""
    if plan.delay:
        await pacer.sleep(plan.delay)
    if plan.truncate is not None:
        return body[: int(len(body) * plan.truncate)]
    return body
