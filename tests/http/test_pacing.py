"""The wheel writes every paced stream of a loop from one timer: each frame when due, the
frames due together in one wake-up, keep-alives, cuts, a client gone, a transport paused.
Timed by a loop of the test's own (nothing here measures real time)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from mockserver.http.pacing import GATHER, Wheel
from mockserver.plans import NDJSON_FRAMING, PacedStream, Pacer, StreamPlan

FRAMES = [f"data: {i}\n\n".encode() for i in range(6)]
TAIL = [b"data: [DONE]\n\n"]
TTFT, GAP = 0.3, 0.02
WAITS = (TTFT, *[GAP] * (len(FRAMES) - 1))


class Timer:
    def __init__(self, when: float, callback: Callable[[], object]) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """A loop's clock and timers: time moves only when the test runs the timers."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[Timer] = []
        self.fired = 0

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        timer = Timer(when, callback)
        self.timers.append(timer)
        return timer

    def run(self, until: float = float("inf"), *, late: float = 0.0) -> None:
        """Fire the timers due by ``until``, earliest first, the clock at each one's time
        (``late``: that much after it, as a loaded loop)."""
        while True:
            live = [t for t in self.timers if not t.cancelled and t.when <= until]
            if not live:
                break
            timer = min(live, key=lambda t: t.when)
            self.timers.remove(timer)
            self.now = max(self.now, timer.when + late)
            self.fired += 1
            timer.callback()
        if until != float("inf"):
            self.now = max(self.now, until)

    @property
    def armed(self) -> list[float]:
        return [t.when for t in self.timers if not t.cancelled]


class Sink:
    """A connection: what was written when, how it ended, and a transport that can pause."""

    def __init__(self, loop: FakeLoop) -> None:
        self.loop = loop
        self.writes: list[tuple[float, list[bytes]]] = []
        self.ended: tuple[list[bytes], bool] | None = None
        self.full = False

    def paused(self) -> bool:
        return self.full

    def write(self, pieces: list[bytes]) -> None:
        self.writes.append((self.loop.now, pieces))

    def end(self, pieces: list[bytes], *, cut: bool) -> None:
        self.ended = (pieces, cut)

    @property
    def sent(self) -> list[bytes]:
        pieces = [piece for _, written in self.writes for piece in written]
        return pieces + (self.ended[0] if self.ended else [])


def _started(plan: StreamPlan, **stream: object) -> tuple[FakeLoop, Wheel, Sink]:
    loop = FakeLoop()
    wheel = Wheel(loop)
    sink = Sink(loop)
    wheel.start(PacedStream(FRAMES, plan, TAIL, **stream), sink)  # type: ignore[arg-type]
    return loop, wheel, sink


def _paced_bytes(plan: StreamPlan, **stream: object) -> tuple[list[bytes], bool]:
    """What ``faults.paced`` (the ASGI path's driver) yields for the same stream, and whether
    it was cut."""
    clock = [100.0]

    async def sleep(seconds: float) -> None:
        clock[0] += seconds

    got: list[bytes] = []

    async def run() -> bool:
        paced = PacedStream(FRAMES, plan, TAIL, **stream)  # type: ignore[arg-type]
        try:
            async for frame in paced.paced(Pacer(lambda: clock[0], sleep)):
                got.append(frame)
        except Exception:
            return True
        return False

    cut = asyncio.run(run())
    return got, cut


def test_each_frame_goes_out_when_due_in_order_then_the_tail() -> None:
    loop, wheel, sink = _started(StreamPlan(waits=WAITS))
    assert sink.writes == []
    assert loop.armed == [pytest.approx(100.0 + TTFT + GATHER)]  # the first due, and a gather
    loop.run()
    assert sink.sent == FRAMES + TAIL
    assert len(sink.writes) == len(FRAMES) - 1  # the last frame goes with the tail
    for index, (at, _) in enumerate(sink.writes):
        due = 100.0 + TTFT + GAP * index
        assert due <= at <= due + GATHER + 1e-9, (index, at)
    assert sink.ended == ([FRAMES[-1], *TAIL], False)
    assert wheel.streams == 0
    assert wheel.entries == 0


def test_streams_due_at_once_go_out_in_one_wake_up() -> None:
    loop = FakeLoop()
    wheel = Wheel(loop)
    sinks = [Sink(loop) for _ in range(3)]
    for sink in sinks:
        wheel.start(PacedStream(FRAMES, StreamPlan(waits=WAITS), TAIL), sink)
    loop.now += GATHER / 2  # a fourth, due half a gather later: the same wake-up
    late = Sink(loop)
    wheel.start(PacedStream(FRAMES, StreamPlan(waits=WAITS), TAIL), late)
    assert len(loop.armed) == 1
    loop.run()
    assert loop.fired == len(FRAMES)
    for sink in [*sinks, late]:
        assert sink.sent == FRAMES + TAIL
    assert [at for at, _ in late.writes] == [at for at, _ in sinks[0].writes]


def test_a_stream_due_sooner_than_the_timer_sets_it_again() -> None:
    loop = FakeLoop()
    wheel = Wheel(loop)
    slow, quick = Sink(loop), Sink(loop)
    wheel.start(PacedStream(FRAMES[:1], StreamPlan(waits=(1.0,)), TAIL), slow)
    wheel.start(PacedStream(FRAMES[:1], StreamPlan(waits=(0.1,)), TAIL), quick)
    assert loop.armed == [pytest.approx(100.1 + GATHER)]
    loop.run(until=100.5)
    assert quick.sent == FRAMES[:1] + TAIL
    assert slow.writes == []
    loop.run()
    assert slow.sent == FRAMES[:1] + TAIL


def test_a_late_wake_up_is_made_up_by_the_next_due() -> None:
    loop, _, sink = _started(StreamPlan(waits=WAITS))
    loop.run(until=100.0 + TTFT + GATHER, late=0.015)  # the first wake-up comes late
    loop.run()
    first, second = sink.writes[0][0], sink.writes[1][0]
    assert first == pytest.approx(100.0 + TTFT + GATHER + 0.015)
    assert second == pytest.approx(100.0 + TTFT + GAP + GATHER)  # on schedule again


def test_keep_alives_fill_a_long_wait() -> None:
    loop, _, sink = _started(StreamPlan(waits=(1.0, *[GAP] * 5), keepalive=0.3))
    loop.run()
    sent = sink.sent
    assert sent[:3] == [b": keep-alive\n\n"] * 3
    assert sent[3:] == FRAMES + TAIL
    assert sink.writes[3][0] == pytest.approx(101.0 + GATHER)


def test_a_framing_without_keep_alives_only_waits() -> None:
    loop, _, sink = _started(
        StreamPlan(waits=(1.0, *[GAP] * 5), keepalive=0.3), framing=NDJSON_FRAMING
    )
    loop.run()
    assert sink.sent == FRAMES + TAIL


@pytest.mark.parametrize(
    ("plan", "sent", "cut"),
    [
        (StreamPlan(waits=WAITS, cut=("disconnect", 2)), FRAMES[:2], True),
        (StreamPlan(waits=WAITS, cut=("disconnect", 6)), FRAMES, True),
        (StreamPlan(waits=WAITS, cut=("error", 3)), [*FRAMES[:3], b"data: oops\n\n"], False),
        (StreamPlan(waits=WAITS, cut=("no_done", 0)), FRAMES, False),
        (StreamPlan(cut=("malformed", 1)), [FRAMES[0], b"data: 1", *FRAMES[1:], *TAIL], False),
        (StreamPlan(waits=WAITS, cut=("stall", 4), stall_for=2.0), FRAMES + TAIL, False),
    ],
    ids=["disconnect", "disconnect-at-end", "error", "no-done", "malformed", "stall"],
)
def test_each_cut_ends_the_stream_as_the_asgi_path_does(
    plan: StreamPlan, sent: list[bytes], cut: bool
) -> None:
    framing = PacedStream(FRAMES, plan).framing
    malformed = type(framing)(framing.keepalive, lambda frame: frame.rstrip(b"\n"))
    stream = {"error_frames": [b"data: oops\n\n"], "framing": malformed}
    loop, wheel, sink = _started(plan, **stream)
    loop.run()
    assert sink.ended is not None
    assert sink.sent == sent
    assert sink.ended[1] is cut
    assert wheel.streams == 0
    assert (sink.sent, cut) == _paced_bytes(plan, **stream)


def test_a_stall_lasts_its_length_from_when_it_begins() -> None:
    loop, _, sink = _started(StreamPlan(waits=WAITS, cut=("stall", 4), stall_for=2.0))
    loop.run()
    times = [at for at, _ in sink.writes]
    # from the wake-up that wrote the frame before it, a gather past its due
    assert times[4] - times[3] == pytest.approx(2.0 + GAP + GATHER)


def test_a_stream_due_at_once_writes_before_start_returns() -> None:
    _, wheel, sink = _started(StreamPlan(cut=("disconnect", 3)))
    assert sink.ended == (FRAMES[:3], True)
    assert wheel.streams == 0
    assert wheel.entries == 0


def test_a_client_gone_mid_stream_stops_it_and_frees_its_entry() -> None:
    loop = FakeLoop()
    wheel = Wheel(loop)
    sink = Sink(loop)
    paced = wheel.start(PacedStream(FRAMES, StreamPlan(waits=WAITS), TAIL), sink)
    loop.run(until=100.0 + TTFT + GAP * 2 + GATHER)
    assert len(sink.writes) == 3
    paced.stop()
    assert wheel.streams == 0
    loop.run()
    assert len(sink.writes) == 3
    assert sink.ended is None
    assert wheel.entries == 0
    assert loop.armed == []


def test_a_paused_transport_holds_its_stream_until_it_resumes() -> None:
    loop = FakeLoop()
    wheel = Wheel(loop)
    sink = Sink(loop)
    paced = wheel.start(PacedStream(FRAMES, StreamPlan(waits=WAITS), TAIL), sink)
    sink.full = True
    loop.run(until=101.0)
    assert sink.writes == []
    assert paced.parked
    assert wheel.entries == 0
    assert loop.armed == []  # nothing to wake for
    sink.full = False
    paced.resume()
    loop.run()
    # everything overdue at once, once it may be written
    assert sink.ended == (FRAMES + TAIL, False)


def test_a_bug_in_one_stream_cuts_it_and_the_others_go_on() -> None:
    def broken(frame: bytes) -> bytes:
        raise RuntimeError("a bug")

    loop = FakeLoop()
    wheel = Wheel(loop)
    bad, good = Sink(loop), Sink(loop)
    framing = PacedStream(FRAMES, StreamPlan()).framing
    plan = StreamPlan(waits=WAITS, cut=("malformed", 2))
    wheel.start(PacedStream(FRAMES, plan, TAIL, framing=type(framing)(None, broken)), bad)
    wheel.start(PacedStream(FRAMES, StreamPlan(waits=WAITS), TAIL), good)
    loop.run()
    assert bad.sent == FRAMES[:2]
    assert bad.ended is not None
    assert bad.ended[1] is True
    assert good.sent == FRAMES + TAIL
