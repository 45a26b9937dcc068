"""Newline-delimited JSON (``application/x-ndjson``): Ollama's streams, one JSON object a line.

The one place that knows what a line looks like on the wire. Ollama's server writes each
object with Go's ``json.Marshal``, which escapes ``<``, ``>``, ``&`` and the line and paragraph
separators inside strings (``\\u003c``…); :func:`go_json` writes the same bytes, so a body or a
line diffs cleanly against a recording of the real server.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

__all__ = ["MEDIA_TYPE", "decode_lines", "go_json", "line", "malformed", "text_line"]

#: The content type of an NDJSON stream.
MEDIA_TYPE: Final = "application/x-ndjson"

#: What Go's ``json.Marshal`` escapes that orjson writes as is (only ever inside strings).
_GO_ESCAPES: Final = (
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)


def go_json(value: Any) -> bytes:
    """``value`` as Go's ``json.Marshal`` writes it: compact, HTML-safe escapes."""
    data = orjson.dumps(value)
    for raw, escaped in _GO_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


def line(value: Any) -> bytes:
    """One line of a stream: the object, then ``\\n``."""
    return go_json(value) + b"\n"


def text_line(data: str) -> bytes:
    """A line whose JSON is text as it was recorded."""
    return data.encode() + b"\n"


def malformed(frame: bytes) -> bytes:
    """A line broken off in the middle (a ``malformed`` fault): not JSON, ended as a line."""
    return frame[: max(1, len(frame) // 2)].rstrip(b"\n") + b"\n"


def decode_lines(stream: bytes) -> list[Any]:
    """The objects of a stream's whole lines (a line cut off or broken is left out)."""
    values = []
    for text in stream.split(b"\n"):
        if not text.strip():
            continue
        try:
            values.append(orjson.loads(text))
        except orjson.JSONDecodeError:
            continue
    return values
