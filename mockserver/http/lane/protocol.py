"""The lane at the HTTP protocol: an answer written before uvicorn makes a task of it.

uvicorn turns every request into an ASGI task: a scope, a request-response cycle, a task, and
``receive``/``send`` round trips through the middleware. For a request the lane can answer
(``routes/replay.py``: a replay, or a new chat request's turn), that is much of the cost.
This subclass of uvicorn's httptools protocol holds back such a request (a ``POST`` to a lane
path, HTTP/1.1, nothing in flight on the connection) until its body is complete, asks the
lane, and writes the answer itself — the bytes uvicorn would have written for the same ASGI
messages: status line, uvicorn's default headers, the answer's headers, then the body
(chunked for a stream). When the lane has no answer, the request goes the usual way with the
body it already read (and, for a turn the lane took but could not send, the turn:
``routes.replay.Handoff``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools

from mockserver.http.lane.lane import Lane
from mockserver.http.lane.recipes import BODY_LIMIT, LANE_ERROR, Answered, Key
from mockserver.ids import monotonic

__all__ = ["encode_answer", "header_lines", "lane_protocol"]

_STATUS_200 = b"HTTP/1.1 200 OK\r\n"


def header_lines(headers: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(b"%b: %b\r\n" % pair for pair in headers)


def encode_answer(answered: Answered, defaults: bytes) -> bytes:
    """What uvicorn's httptools cycle writes for ``answered``'s start and body messages (on a
    kept-alive HTTP/1.1 connection): the server's default header lines (``defaults``), the
    answer's headers, then a chunked or sized body."""
    body = answered.body
    if answered.stream:  # no content-length: uvicorn frames it as one chunk and the last
        return b"%b%b%btransfer-encoding: chunked\r\n\r\n%x\r\n%b\r\n0\r\n\r\n" % (
            _STATUS_200,
            defaults,
            answered.head(),
            len(body),
            body,
        )
    return b"".join((_STATUS_200, defaults, answered.head(), b"\r\n", body))


def lane_protocol(base: type[Any], lane: Lane, wrap: type[Any]) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's ``HttpToolsProtocol``) answering what ``lane`` can, its transport
    wrapped in ``wrap`` (which sends one step's writes at once, and has ``send_now()``)."""

    class LaneProtocol(base):  # type: ignore[misc]
        _held: bytearray | None = None
        _held_path = ""
        _held_since = 0.0
        #: uvicorn's default headers (a new list each second, for ``date``) as header lines.
        _defaults: tuple[object, bytes] = (None, b"")

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(wrap(transport))

        def on_headers_complete(self) -> None:
            self._held = None
            if (
                self.parser.get_method() == b"POST"
                and (self.cycle is None or self.cycle.response_complete)
                and not self.pipeline
                and not self.expect_100_continue
                and self.parser.get_http_version() == "1.1"
                and self.parser.should_keep_alive()
                and not self.parser.should_upgrade()
            ):
                raw_path = httptools.parse_url(self.url).path
                if b"%" not in raw_path:
                    path = self.root_path + raw_path.decode("ascii")
                    if lane.takes(path, self.headers):
                        self._held = bytearray()
                        self._held_path = path
                        self._held_since = monotonic()
                        return
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            if self._held is None:
                super().on_body(body)
                return
            self._held += body
            if len(self._held) > BODY_LIMIT:  # too big to be worth it: the usual way
                self._release()

        def _release(self) -> None:
            """Let the held request go the usual way, with what was read of its body."""
            held, self._held = self._held, None
            super().on_headers_complete()
            if held:
                super().on_body(bytes(held))

        def on_message_complete(self) -> None:
            held = self._held
            if held is None:
                super().on_message_complete()
                return
            key: Key = (self._held_path, bytes(held), tuple(self.headers))
            try:
                answered = lane.answer(key)
            except Exception as exc:  # our bug: to the app's one error boundary (a logged 500)
                self.scope[LANE_ERROR] = exc
                answered = None
            if not isinstance(answered, Answered):  # the full path answers (a handoff's turn)
                lane.let_through(key, self.scope, answered)
                self._release()
                super().on_message_complete()
                return
            self._held = None
            self.transport.send_now(encode_answer(answered, self._default_lines()))
            lane.complete(answered, self._held_since)
            self.on_response_complete()

        def _default_lines(self) -> bytes:
            current = self.server_state.default_headers
            seen, lines = self._defaults
            if seen is not current:
                lines = header_lines(current)
                self._defaults = (current, lines)
            return lines

    return LaneProtocol
