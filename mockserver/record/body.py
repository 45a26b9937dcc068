"""A recorded HTTP body read back as the client saw it: its transfer and content encodings
undone, then read as JSON or as server-sent events. The importers (vcr cassettes, HAR files)
share this; what is wrong with a body is a :class:`BodyError` saying so in a user's words.
"""

from __future__ import annotations

import gzip
import importlib
import re
import zlib
from typing import Any, Protocol, cast

import orjson

from mockserver.record.exchange import Event
from mockserver.values import value_class

__all__ = [
    "Answer",
    "BodyError",
    "dechunked",
    "decoded",
    "events_of",
    "is_event_stream",
    "json_of",
    "read_response",
    "stream_complete",
]


class BodyError(ValueError):
    """A body that cannot be read as recorded (the importer adds where it is)."""


class _Brotli(Protocol):
    def decompress(self, data: bytes, /) -> bytes: ...


def _brotli() -> _Brotli | None:
    """The installed brotli binding, if any (neither is a dependency: bodies are rarely br)."""
    for name in ("brotli", "brotlicffi"):
        try:
            return cast(_Brotli, importlib.import_module(name))
        except ImportError:
            continue
    return None


def _undo(raw: bytes, coding: str) -> bytes:
    if coding in ("gzip", "x-gzip"):
        return gzip.decompress(raw)
    if coding == "deflate":  # zlib-wrapped as the RFC says, or raw deflate as some servers send
        try:
            return zlib.decompress(raw)
        except zlib.error:
            return zlib.decompress(raw, -zlib.MAX_WBITS)
    if coding == "br":
        brotli = _brotli()
        if brotli is None:
            raise BodyError(
                "the body is brotli-compressed (content-encoding: br) and no brotli module is "
                "installed: pip install brotli, or record with accept-encoding: gzip"
            )
        refused: type[Exception] = getattr(brotli, "error", None) or ValueError  # brotli's own
        try:
            return brotli.decompress(raw)
        except (refused, ValueError) as exc:
            raise BodyError(f"the body is not valid br data ({exc})") from None
    raise BodyError(f"content-encoding {coding!r} is not one an import reads (gzip, deflate, br)")


def decoded(raw: bytes, content_encoding: str) -> bytes:
    """``raw`` with each content coding undone, last applied first (``identity``: as is)."""
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    body = raw
    for coding in reversed(codings):
        if coding == "identity":
            continue
        try:
            body = _undo(body, coding)
        except (OSError, EOFError, zlib.error) as exc:  # gzip raises BadGzipFile (an OSError)
            raise BodyError(f"the body is not valid {coding} data ({exc})") from None
    return body


_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]+)(?:;[^\r\n]*)?\r?\n")


def dechunked(raw: bytes) -> bytes | None:
    """The payload of ``raw`` if it is HTTP/1.1 chunked framing ending in its zero chunk, else
    ``None`` (most recorders store the payload already de-chunked; then it is used as is)."""
    out = bytearray()
    at = 0
    while True:
        size_line = _CHUNK_SIZE.match(raw, at)
        if size_line is None:
            return None
        size = int(size_line.group(1), 16)
        at = size_line.end()
        if size == 0:
            return bytes(out) if raw[at:].strip(b"\r\n") == b"" else None
        chunk_end = at + size
        if chunk_end > len(raw):
            return None
        out += raw[at:chunk_end]
        at = chunk_end
        if raw.startswith(b"\r\n", at):
            at += 2
        elif raw.startswith(b"\n", at):
            at += 1
        else:
            return None


def is_event_stream(content_type: str, body: bytes) -> bool:
    """Whether a body is a server-sent event stream: by its type, or (no type recorded) by its
    first field."""
    if content_type:
        return content_type.split(";")[0].strip().lower() == "text/event-stream"
    return re.match(rb"\s*(data|event):", body) is not None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def events_of(text: str, offsets: list[float] | None = None) -> tuple[Event, ...]:
    """The events of an SSE stream, parsed as browsers do (multi-line data joined with newlines,
    comments and ``id``/``retry`` fields dropped); an unterminated last event still counts.
    Each event's offset is ``offsets[i]`` where given, else 0."""
    events: list[Event] = []
    data: list[str] = []
    name: str | None = None
    for line in [*_LINE_BREAK.split(text), ""]:
        if line == "":
            if data:
                at = offsets[len(events)] if offsets and len(events) < len(offsets) else 0.0
                events.append(Event(offset_ms=at, data="\n".join(data), event=name))
            data, name = [], None
            continue
        if line.startswith(":"):
            continue
        key, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if key == "data":
            data.append(value)
        elif key == "event":
            name = value
    return tuple(events)


#: The events after which a Responses stream (or an Anthropic message's) is over.
_LAST_RESPONSES_EVENTS = frozenset(
    {"response.completed", "response.failed", "response.incomplete", "error", "message_stop"}
)


def stream_complete(events: tuple[Event, ...]) -> bool:
    """Whether a stream ended with its last event (``[DONE]``, a Responses stream's final
    event, a Gemini chunk with a finish reason, an Anthropic message's ``message_stop``) rather
    than being cut."""
    if not events:
        return False
    last = events[-1]
    if last.data == "[DONE]":
        return True
    kind = last.event
    if kind is None:
        try:
            payload = orjson.loads(last.data)
        except orjson.JSONDecodeError:
            return False
        if isinstance(payload, dict) and _gemini_finished(payload):
            return True
        kind = payload.get("type") if isinstance(payload, dict) else None
    return kind in _LAST_RESPONSES_EVENTS


def _gemini_finished(chunk: dict[str, Any]) -> bool:
    """A Gemini stream's last chunk: a candidate's ``finishReason``, or a blocked prompt."""
    candidates = chunk.get("candidates")
    if isinstance(candidates, list) and candidates:
        return all(isinstance(c, dict) and c.get("finishReason") for c in candidates)
    return bool((chunk.get("promptFeedback") or {}).get("blockReason"))


def json_of(body: bytes, what: str) -> Any:
    """``body`` as JSON (an empty body: ``None``)."""
    if not body.strip():
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        start = body[:40].decode("utf-8", "replace")
        raise BodyError(f"the {what} is not JSON ({exc}); it starts {start!r}") from None


@value_class
class Answer:
    """A response body as read: JSON, or a stream's events."""

    body: Any
    events: tuple[Event, ...] | None
    complete: bool = True
    #: A JSON body's text exactly as the client read it (an exact replay sends it).
    text: str | None = None
    #: A stream whose lines ended in CRLF (an exact replay ends them so).
    crlf: bool = False


def read_response(
    raw: bytes,
    *,
    content_type: str,
    content_encoding: str = "",
    chunked: bool = False,
    offsets: list[float] | None = None,
) -> Answer:
    """A recorded response body as JSON or as events, its encodings undone first."""
    if chunked:
        raw = dechunked(raw) or raw
    raw = decoded(raw, content_encoding)
    if is_event_stream(content_type, raw):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BodyError(f"the event stream is not UTF-8 text ({exc})") from None
        events = events_of(text, offsets)
        return Answer(None, events, complete=stream_complete(events), crlf="\r\n" in text)
    body = json_of(raw, "response body")
    return Answer(body, None, text=None if body is None else raw.decode("utf-8"))
