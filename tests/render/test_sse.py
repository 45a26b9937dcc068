"""Reading a stream back: the payloads of either framing, as JSON values."""

from __future__ import annotations

from mockserver.render import sse


def test_decode_stream_reads_chat_frames_without_done() -> None:
    chunks = [{"id": 1, "delta": "data: not a frame\n\n"}, {"id": 2, "delta": "x"}]
    stream = b"".join([*(sse.frame(c) for c in chunks), sse.DONE])
    assert sse.decode_stream(stream) == chunks


def test_decode_stream_reads_event_frames() -> None:
    events = [{"type": "response.created", "n": 0}, {"type": "response.completed", "n": 1}]
    stream = b"".join(sse.event_frame(e["type"], e) for e in events)
    assert sse.decode_stream(stream) == events
