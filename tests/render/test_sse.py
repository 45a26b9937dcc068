"""Reading a stream back: the payloads of either framing, as JSON values; and the framing
written in one module."""

from __future__ import annotations

import re
from pathlib import Path

import mockserver
from mockserver.render import sse

#: A string literal that starts an SSE data line.
_DATA_LINE = re.compile(r"[\"']data: ")


def test_decode_stream_reads_chat_frames_without_done() -> None:
    chunks = [{"id": 1, "delta": "data: not a frame\n\n"}, {"id": 2, "delta": "x"}]
    stream = b"".join([*(sse.frame(c) for c in chunks), sse.DONE])
    assert sse.decode_stream(stream) == chunks


def test_decode_stream_reads_event_frames() -> None:
    events = [{"type": "response.created", "n": 0}, {"type": "response.completed", "n": 1}]
    stream = b"".join(sse.event_frame(e["type"], e) for e in events)
    assert sse.decode_stream(stream) == events


def test_only_the_sse_module_writes_data_lines() -> None:
    package = Path(mockserver.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert sources
    framing = [
        path.relative_to(package).as_posix()
        for path in sources
        if _DATA_LINE.search(path.read_text(encoding="utf-8"))
    ]
    assert framing == ["render/sse.py"]
