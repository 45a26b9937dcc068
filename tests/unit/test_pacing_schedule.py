"""A paced stream keeps to its schedule: each frame is due at its offset from the stream's start,
so an event loop that wakes late makes one frame late, not every frame after it later still.
Timed by a clock of the test's own (nothing here measures real time)."""

from __future__ import annotations

import asyncio

from mockserver.plans import SSE_FRAMING, Pacer, StreamPlan, paced

FRAMES = [f"data: {i}\n\n".encode() for i in range(20)]
TTFT, GAP = 0.3, 0.02


class LateLoop:
    """A clock whose every sleep ends ``late`` seconds after it was due (a loaded loop)."""

    def __init__(self, late: float) -> None:
        self.time = 1000.0
        self.late = late
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.time += seconds + self.late


def _arrivals(plan: StreamPlan, loop: LateLoop) -> list[tuple[float, bytes]]:
    start = loop.now()

    async def run() -> list[tuple[float, bytes]]:
        pacer = Pacer(loop.now, loop.sleep)
        return [
            (loop.now() - start, frame)
            async for frame in paced(FRAMES, plan, tail=(), error_frames=(), pacer=pacer)
        ]

    return asyncio.run(run())


def test_a_late_wake_up_is_made_up_by_the_next_wait() -> None:
    loop = LateLoop(late=0.005)
    plan = StreamPlan(waits=(TTFT, *[GAP] * (len(FRAMES) - 1)))
    arrivals = _arrivals(plan, loop)
    assert [frame for _, frame in arrivals] == FRAMES
    for index, (at, _) in enumerate(arrivals):
        due = TTFT + GAP * index
        assert due <= at <= due + 0.005 + 1e-9, (index, at, due)
    assert loop.sleeps[1] < GAP  # the second wait was shortened by the first one's lateness


def test_on_time_the_waits_are_the_plans() -> None:
    loop = LateLoop(late=0.0)
    waits = (TTFT, *[GAP] * (len(FRAMES) - 1))
    _arrivals(StreamPlan(waits=waits), loop)
    assert [round(s, 9) for s in loop.sleeps] == list(waits)


def test_a_stall_lasts_its_whole_length_from_when_it_begins() -> None:
    loop = LateLoop(late=0.0)
    waits = (TTFT, *[GAP] * (len(FRAMES) - 1))
    plan = StreamPlan(waits=waits, cut=("stall", 5), stall_for=2.0)
    arrivals = _arrivals(plan, loop)
    assert round(arrivals[5][0] - arrivals[4][0], 9) == 2.0 + GAP
    assert round(arrivals[-1][0], 9) == round(TTFT + GAP * (len(FRAMES) - 1) + 2.0, 9)


def test_keep_alives_fill_a_long_wait_and_the_frame_still_comes_when_due() -> None:
    loop = LateLoop(late=0.0)
    plan = StreamPlan(waits=(1.0, GAP), keepalive=0.3)
    got: list[bytes] = []

    async def run() -> None:
        pacer = Pacer(loop.now, loop.sleep)
        async for frame in paced(
            FRAMES[:2], plan, tail=(), error_frames=(), pacer=pacer, framing=SSE_FRAMING
        ):
            got.append(frame)

    asyncio.run(run())
    assert got.count(b": keep-alive\n\n") == 3
    assert got[-2:] == FRAMES[:2]
    assert round(sum(loop.sleeps), 9) == 1.0 + GAP
