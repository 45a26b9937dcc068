"""The bytes an answer goes out as on a kept-alive HTTP/1.1 connection, written at the protocol
level (``protocol.py``) without uvicorn's cycle: the same bytes uvicorn's httptools cycle writes
for the same ASGI messages; and the transport that sends what one event-loop step wrote in one
``send``. Nothing here reaches into uvicorn: its internals stay in ``protocol.py``."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from mockserver.errors import APIError
from mockserver.http.lane.recipes import Answered

__all__ = [
    "BAD_REQUEST",
    "LAST_CHUNK",
    "TIMED_OUT",
    "OneWriteTransport",
    "chunks",
    "encode_answer",
    "error_answer",
    "header_lines",
    "stream_head",
]

_STATUS_200 = b"HTTP/1.1 200 OK\r\n"
_CHUNKED = b"transfer-encoding: chunked\r\n\r\n%x\r\n"
_LAST_CHUNK = b"\r\n0\r\n\r\n"


def header_lines(headers: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(b"%b: %b\r\n" % pair for pair in headers)


def encode_answer(answered: Answered, defaults: bytes) -> bytes:
    """What uvicorn's httptools cycle writes for ``answered``'s start and body messages (on a
    kept-alive HTTP/1.1 connection): the server's default header lines (``defaults``), the
    answer's headers, then a chunked or sized body."""
    body = answered.body
    if answered.framing.sized:
        return b"".join((_STATUS_200, defaults, answered.head(), b"\r\n", body))
    # a stream: no content-length: uvicorn frames it as one chunk and the last (joined, not
    # %-formatted: ``%`` copies a stream's body again each time its buffer grows)
    return b"".join(
        (_STATUS_200, defaults, answered.head(), _CHUNKED % len(body), body, _LAST_CHUNK)
    )


def stream_head(answered: Answered, defaults: bytes) -> bytes:
    """What uvicorn's httptools cycle writes for a stream's start message: the status line, the
    server's default header lines, the answer's, and chunked framing for what follows."""
    return b"%b%b%btransfer-encoding: chunked\r\n\r\n" % (_STATUS_200, defaults, answered.head())


def chunks(pieces: list[bytes]) -> bytes:
    """``pieces`` as uvicorn writes a body message each on a chunked answer (an empty one:
    nothing)."""
    return b"".join([b"%x\r\n%b\r\n" % (len(piece), piece) for piece in pieces if piece])


#: What ends a chunked answer.
LAST_CHUNK = b"0\r\n\r\n"


#: What a slow or malformed request is answered with (the API's error shape, then a close).
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\n"
BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\n"


def error_answer(status_line: bytes, defaults: bytes, error: APIError) -> bytes:
    """A whole answer that closes the connection: ``error``'s JSON body after the server's
    default header lines."""
    body = orjson.dumps(error.body())
    return (
        b"%b%bcontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%b"
        % (
            status_line,
            defaults,
            len(body),
            body,
        )
    )


class OneWriteTransport:
    """A transport that sends what one event-loop step wrote in one ``send``.

    uvicorn writes the status line and headers, then the body, then (chunked) the terminator,
    each straight to the socket; on a loopback each ``send`` costs about as much as rendering
    a reply. Here they go out together at the end of the step, so an answer is one segment.
    A paced stream sleeps between frames, which ends the step: it still goes frame by frame.
    """

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._loop = asyncio.get_running_loop()
        self._pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._pending is None:
            self._pending = [data]
            self._loop.call_soon(self._flush)
        else:
            self._pending.append(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def send_now(self, data: bytes) -> None:
        """Send ``data`` now, after anything pending (a whole answer: no reason to wait)."""
        if self._pending is None:
            if not self._transport.is_closing():
                self._transport.write(data)
        else:
            self._pending.append(data)
            self._flush()

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def is_closing(self) -> bool:
        # Asked once per answer (uvicorn's on_response_complete): through __getattr__, each
        # ask first raised and caught an AttributeError.
        return self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
