"""Capturing one exchange as its bytes arrive: the request, the status and headers, then the
body, or each server-sent event (or NDJSON line) with the time it arrived. Pure: the proxy
feeds it bytes and times; nothing here reads a clock or a socket."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mockserver.record.exchange import Event, Exchange
from mockserver.record.redact import kept_request, kept_response
from mockserver.render import eventstream

__all__ = ["Capture", "EventReader", "LineReader"]


class EventReader:
    """Server-sent events out of a byte stream cut anywhere (``\\n``, ``\\r\\n`` or ``\\r``)."""

    def __init__(self) -> None:
        self._buffer = ""
        self._event: str | None = None
        self._data: list[str] = []
        #: Did the stream end its lines in CRLF?
        self.crlf = False

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        """The events ``chunk`` completes: ``(event name or None, data)``."""
        self._buffer += chunk.decode("utf-8", errors="replace")
        self.crlf = self.crlf or "\r\n" in self._buffer
        self._buffer = self._buffer.replace("\r\n", "\n").replace("\r", "\n")
        done = []
        *lines, self._buffer = self._buffer.split("\n")
        for line in lines:
            if line == "":
                if self._data:
                    done.append((self._event, "\n".join(self._data)))
                self._event, self._data = None, []
            elif line.startswith("data:"):
                self._data.append(line[5:].removeprefix(" "))
            elif line.startswith("event:"):
                self._event = line[6:].removeprefix(" ")
        return done


class LineReader:
    """The lines of an NDJSON stream (Ollama's) out of a byte stream cut anywhere: each a
    ``(None, line)`` event, as :class:`EventReader` gives them."""

    #: NDJSON lines end in ``\n`` (a CR before it is the line's own).
    crlf = False

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        *lines, self._buffer = (self._buffer + chunk).split(b"\n")
        return [(None, line.decode("utf-8", errors="replace")) for line in lines if line.strip()]


@dataclass
class Capture:
    """One exchange being captured."""

    method: str
    path: str
    query: str
    request_headers: Iterable[tuple[str, str]]
    raw_request: bytes
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    stream: bool = False
    #: The stream is AWS's event stream (binary messages), not server-sent events.
    binary: bool = False
    _body: bytearray = field(default_factory=bytearray)
    _events: list[Event] = field(default_factory=list)
    _reader: EventReader | LineReader = field(default_factory=EventReader)

    def respond(self, status: int, headers: Iterable[tuple[str, str]]) -> None:
        headers = list(headers)
        self.status = status
        self.response_headers = kept_response(headers)
        kind = {k.lower(): v for k, v in headers}.get("content-type", "")
        self.binary = kind.startswith(eventstream.MEDIA_TYPE)
        self.stream = kind.startswith("text/event-stream") or self.binary
        if kind.startswith("application/x-ndjson"):
            self.stream = True
            self._reader = LineReader()

    def receive(self, chunk: bytes, *, offset_ms: float) -> None:
        if not self.stream:
            self._body += chunk
            return
        if self.binary:  # whole messages as they complete, each its member and payload
            self._body += chunk
            used = 0
            for headers, payload, size in eventstream.decode_sized(bytes(self._body)):
                name = headers.get(":event-type") or headers.get(":exception-type") or ""
                text = payload.decode("utf-8", errors="replace")
                self._events.append(Event(round(offset_ms, 1), text, name))
                used += size
            del self._body[:used]
            return
        for event, data in self._reader.feed(chunk):
            self._events.append(Event(round(offset_ms, 1), data, event))

    def finish(self, *, complete: bool, elapsed_ms: float) -> Exchange:
        text = None if self.stream else self._body.decode("utf-8", errors="replace")
        return Exchange(
            method=self.method,
            path=self.path,
            status=self.status,
            request=_json_or_none(self.raw_request.decode("utf-8", errors="replace")),
            query=self.query,
            request_headers=kept_request(self.request_headers),
            response_headers=self.response_headers,
            body=None if text is None else _json_or_none(text),
            events=tuple(self._events) if self.stream else None,
            complete=complete,
            elapsed_ms=round(elapsed_ms, 1),
            body_text=text,
            crlf=self.stream and self._reader.crlf,
        )


def _json_or_none(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
