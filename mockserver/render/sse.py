"""Stream framing: the one place that knows what a frame looks like on the wire.

Server-sent events for the OpenAI APIs (``data:`` frames, named ``event:`` frames) and the
Gemini API's ``alt=sse`` (``data:`` frames ending in CRLF); and the Gemini API's other
framing, one JSON array streamed element by element (``[{…}`` ``,{…}`` … ``]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

__all__ = [
    "ARRAY_END",
    "DONE",
    "array_frames",
    "comment",
    "decode_array",
    "decode_stream",
    "encode_json",
    "encode_json_pretty",
    "event_frame",
    "frame",
    "google_frame",
    "kept",
    "malformed",
    "payload",
    "text_frame",
]

#: The chat stream's terminator.
DONE = b"data: [DONE]\n\n"


def encode_json(value: Any) -> bytes:
    """Compact JSON, as the real API writes it inside stream frames."""
    return orjson.dumps(value)


def encode_json_pretty(value: Any) -> bytes:
    """Indented JSON, as the real API writes non-streamed bodies."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


def kept(encoded: bytes) -> bytes:
    """``encoded`` as a journal keeps it: a copy in memory of its own size. orjson's bytes keep
    the whole buffer they were written in (4 KiB and up, doubling), fine for bytes that are
    sent and dropped, several times their size for bytes kept."""
    return memoryview(encoded).tobytes()


def frame(value: Any) -> bytes:
    """``data: {json}`` + blank line (the Chat Completions framing)."""
    return b"data: " + orjson.dumps(value) + b"\n\n"


def google_frame(value: Any) -> bytes:
    """``data: {json}`` + a blank line, in CRLF (the Gemini API's ``alt=sse`` framing: no
    ``event:`` line, no terminator)."""
    return b"data: " + orjson.dumps(value) + b"\r\n\r\n"


#: What closes a streamed JSON array.
ARRAY_END = b"\n]"


def array_frames(values: Iterable[Any], *, opened: bool = False) -> list[bytes]:
    """``values`` as the pieces of one streamed JSON array (the Gemini API's stream without
    ``alt=sse``): the first opens it, each later one follows a comma, each is indented JSON
    as a body is written; :data:`ARRAY_END` closes it. ``opened``: elements were sent before."""
    frames = []
    for value in values:
        head = b"\n,\r\n" if opened else b"["
        frames.append(head + orjson.dumps(value, option=orjson.OPT_INDENT_2))
        opened = True
    return frames


def decode_array(stream: bytes) -> list[Any]:
    """The elements of a streamed JSON array (closed or cut: what was sent in whole)."""
    text = stream if stream.rstrip().endswith(b"]") else stream.rstrip(b", \r\n") + b"]"
    try:
        values: list[Any] = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    return values


def event_frame(event: str, value: Any) -> bytes:
    """``event: name`` + ``data: {json}`` + blank line (the Responses framing)."""
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(value) + b"\n\n"


def payload(frame: bytes) -> bytes:
    """The JSON a frame carries (the bytes after its ``data: ``): what a WebSocket sends of
    the same event, as one message."""
    return frame[frame.index(b"data: ") + 6 : -2]


def text_frame(event: str | None, data: str) -> bytes:
    """An event whose data is text as it was recorded (``event:`` if named, a ``data:`` line
    per line of it), framed as the OpenAI APIs frame theirs."""
    lines = [f"event: {event}"] if event is not None else []
    lines += [f"data: {line}" for line in data.split("\n")]
    return ("\n".join(lines) + "\n\n").encode()


def decode_stream(stream: bytes) -> list[Any]:
    """The JSON payloads of a stream's frames, any framing (``[DONE]`` left out)."""
    if stream.startswith(b"["):
        return decode_array(stream)
    if b"\r\n" in stream:
        stream = stream.replace(b"\r\n", b"\n")
    payloads = [
        frame.partition(b"data: ")[2] for frame in stream.split(b"\n\n") if frame and frame != _END
    ]
    values: list[Any] = orjson.loads(b"[" + b",".join(payloads) + b"]")
    return values


_END = DONE.rstrip(b"\n")


def malformed(frame: bytes) -> bytes:
    """A copy of ``frame`` whose JSON is cut in half (a scripted malformed frame)."""
    head, _, payload = frame.rstrip(b"\n").rpartition(b"data: ")
    return head + b"data: " + payload[: max(1, len(payload) // 2)] + b"\n\n"


def comment(text: str = "") -> bytes:
    """A keep-alive comment line."""
    return b": " + text.encode() + b"\n\n"


def join(frames: Iterable[bytes]) -> bytes:
    return b"".join(frames)
