"""Every paced stream of an event loop on one timer.

A paced stream (``ttft``, tokens/s, a fault that stalls or cuts it) follows its
:func:`~mockserver.plans.timeline`: write these bytes, wait so long, write the next. Driven by
a sleep per wait (:func:`~mockserver.plans.paced`, the ASGI path's), each event is an asyncio
task's wake-up and a trip through Starlette's streaming response and uvicorn's ``send``; with
hundreds of streams open the loop's wake-ups come late in bursts and the schedule slips.

Here the :class:`Wheel` keeps every paced stream of a loop in one heap of ``(due, seq,
stream)`` and one ``loop.call_at`` for the earliest due (:data:`GATHER` past it). When it
fires, every stream then due takes its steps: the bytes it is due to write go to its
:class:`Sink` (the connection, which writes them straight to the transport) in one write, and
the stream goes back in the heap at its next due. A stream whose transport is paused (its
client reads slower than it is sent) waits out of the heap until the transport resumes, so
nothing piles up in the transport's buffer; a stream whose client went away is stopped and its
bytes let go at once (its heap entry, an empty shell, leaves when it comes due).

The protocol's lane (``protocol.py``) hands the wheel the paced answers it takes; the ASGI path
(an in-process client, a uvicorn this project's protocols were not written for) keeps
:func:`~mockserver.plans.paced`. Both follow the same timeline, so the bytes are the same.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from collections.abc import Callable, Generator
from typing import Protocol

from mockserver.errors import StreamAborted
from mockserver.plans import PacedStream, Step

__all__ = ["GATHER", "Clock", "Paced", "Sink", "Wheel"]

log = logging.getLogger("mockserver")

#: How far past the earliest due the timer is set (seconds): the frames due within it go out
#: in the same wake-up, each at most this late, instead of a wake-up each. uvloop counts its
#: timers in whole milliseconds, so a timer for an exact due fires up to one either side of it
#: anyway; a millisecond is what a load test cannot tell from the network's own jitter.
GATHER = 0.001


class Clock(Protocol):
    """What the wheel asks of an event loop: its time, and a timer (tests give a fake)."""

    def time(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], object]) -> Cancellable: ...


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Sink(Protocol):
    """Where a paced stream's bytes go: its connection."""

    def paused(self) -> bool:
        """Is the transport's buffer full (wait for :meth:`Paced.resume`)?"""

    def write(self, pieces: list[bytes]) -> None:
        """Send what the stream is due to write now (one piece an event)."""

    def end(self, pieces: list[bytes], *, cut: bool) -> None:
        """The stream ended: send its last pieces, then end the answer, or (``cut``) drop the
        connection (a scripted disconnect)."""


class Paced:
    """One stream on the wheel: its timeline, its sink, and whether it is waiting for the
    transport (``parked``) or has ended."""

    __slots__ = ("_sink", "_steps", "_wheel", "ended", "parked")

    def __init__(self, steps: Generator[Step, float, None], sink: Sink, wheel: Wheel) -> None:
        self._steps: Generator[Step, float, None] | None = steps
        self._sink: Sink | None = sink
        self._wheel = wheel
        self.parked = False
        self.ended = False

    def advance(self, now: float, *, first: bool = False) -> float | None:
        """Take the steps due at ``now``: write what is due, and say when the next is (``None``:
        the stream has ended, or waits for its transport)."""
        steps, sink = self._steps, self._sink
        if steps is None or sink is None:
            return None
        if sink.paused():
            self.parked = True
            return None
        pieces: list[bytes] = []
        try:
            step = next(steps) if first else steps.send(now)
            while not isinstance(step, float):
                pieces.append(step)
                step = steps.send(now)
        except StopIteration:
            self._end(sink, pieces, cut=False)
            return None
        except StreamAborted:
            self._end(sink, pieces, cut=True)
            return None
        except Exception:  # our bug: this stream is cut (as uvicorn cuts one), the rest go on
            log.exception("a paced stream failed")
            self._end(sink, pieces, cut=True)
            return None
        if pieces:
            sink.write(pieces)
        return now + step

    def _end(self, sink: Sink, pieces: list[bytes], *, cut: bool) -> None:
        self.stop()
        sink.end(pieces, cut=cut)

    def resume(self) -> None:
        """The transport takes bytes again: a parked stream goes back on the wheel, due now."""
        if self.parked and not self.ended:
            self.parked = False
            self._wheel.due(self, self._wheel.clock.time())

    def stop(self) -> None:
        """Stop for good (the client went away, or the stream ended): its bytes are let go."""
        if self.ended:
            return
        self.ended = True
        self._wheel.streams -= 1
        if self._steps is not None:
            self._steps.close()
        self._steps = self._sink = None


class Wheel:
    """Every paced stream of one event loop, on one timer (see the module's docstring)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        #: Streams started and not yet ended or stopped.
        self.streams = 0
        self._heap: list[tuple[float, int, Paced]] = []
        self._order = itertools.count()
        self._timer: Cancellable | None = None
        self._timer_for = float("inf")
        self._waking = False

    @property
    def entries(self) -> int:
        """Entries in the heap (a stopped stream's until it comes due)."""
        return len(self._heap)

    def start(self, stream: PacedStream, sink: Sink) -> Paced:
        """Start writing ``stream`` to ``sink``, its schedule counted from now; what is due at
        once is written before this returns."""
        now = self.clock.time()
        paced = Paced(stream.timeline(now), sink, self)
        self.streams += 1
        self._take(paced, now, first=True)
        return paced

    def due(self, paced: Paced, when: float) -> None:
        """Put ``paced`` on the wheel, due ``when``."""
        heapq.heappush(self._heap, (when, next(self._order), paced))
        if not self._waking and when < self._timer_for:
            self._arm(when)

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_for = when
        self._timer = self.clock.call_at(when + GATHER, self._wake)

    def _wake(self) -> None:
        """The timer fired: every stream due by now takes its steps; then the timer is set
        for the earliest still to come."""
        self._timer, self._timer_for = None, float("inf")
        now = self.clock.time()
        heap = self._heap
        self._waking = True
        try:
            while heap and heap[0][0] <= now:
                paced = heapq.heappop(heap)[2]
                if not paced.ended:
                    self._take(paced, now)
        finally:
            self._waking = False
            if heap:
                self._arm(heap[0][0])

    def _take(self, paced: Paced, now: float, *, first: bool = False) -> None:
        when = paced.advance(now, first=first)
        if when is not None:
            self.due(paced, when)
