"""Server-sent-event framing: the one place that knows what a frame looks like on the wire.

The OpenAI APIs' (``data:`` frames, named ``event:`` frames) and the Gemini API's ``alt=sse``
(``data:`` frames ending in CRLF). The Gemini API's other stream, a JSON array sent element by
element, is ``render/json_array.py``'s.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = [
    "DONE",
    "comment",
    "data_of",
    "decode_stream",
    "event_frame",
    "frame",
    "google_frame",
    "malformed",
    "payload",
    "text_frame",
]

#: The chat stream's terminator.
DONE = b"data: [DONE]\n\n"
_END = DONE.rstrip(b"\n")


def frame(value: Any) -> bytes:
    """``data: {json}`` + blank line (the Chat Completions framing)."""
    return b"data: " + orjson.dumps(value) + b"\n\n"


def google_frame(value: Any) -> bytes:
    """``data: {json}`` + a blank line, in CRLF (the Gemini API's ``alt=sse`` framing: no
    ``event:`` line, no terminator)."""
    return b"data: " + orjson.dumps(value) + b"\r\n\r\n"


def event_frame(event: str, value: Any) -> bytes:
    """``event: name`` + ``data: {json}`` + blank line (the Responses framing)."""
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(value) + b"\n\n"


def payload(frame: bytes) -> bytes:
    """The JSON a frame carries (the bytes after its ``data: ``): what a WebSocket sends of
    the same event, as one message."""
    return frame[frame.index(b"data: ") + 6 : -2]


def data_of(frame: bytes) -> bytes | None:
    """The data an event ``frame`` carries, its ``data:`` lines joined as one text (a recorded
    event's may be several); ``None`` for a comment."""
    if b"data: " not in frame:
        return None
    if frame.count(b"data: ") > 1:
        lines = [line[6:] for line in frame.split(b"\n") if line.startswith(b"data: ")]
        frame = b"data: " + b"\n".join(lines) + b"\n\n"
    return payload(frame)


def text_frame(event: str | None, data: str, *, newline: str = "\n") -> bytes:
    """An event whose data is text as it was recorded (``event:`` if named, a ``data:`` line
    per line of it), its lines ended with ``newline`` (the OpenAI APIs end theirs with LF,
    the Gemini API with CRLF)."""
    lines = [f"event: {event}"] if event is not None else []
    lines += [f"data: {line}" for line in data.split("\n")]
    return (newline.join(lines) + newline * 2).encode()


def decode_stream(stream: bytes) -> list[Any]:
    """The JSON payloads of a stream's frames, either line ending (``[DONE]`` left out)."""
    if b"\r\n" in stream:
        stream = stream.replace(b"\r\n", b"\n")
    payloads = [
        frame.partition(b"data: ")[2] for frame in stream.split(b"\n\n") if frame and frame != _END
    ]
    values: list[Any] = orjson.loads(b"[" + b",".join(payloads) + b"]")
    return values


def malformed(frame: bytes) -> bytes:
    """A copy of ``frame`` whose JSON is cut in half (a scripted malformed frame)."""
    head, _, payload = frame.rstrip(b"\n").rpartition(b"data: ")
    return head + b"data: " + payload[: max(1, len(payload) // 2)] + b"\n\n"


def comment(text: str = "") -> bytes:
    """A keep-alive comment line."""
    return b": " + text.encode() + b"\n\n"
