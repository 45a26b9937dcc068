"""The answers the server sends: one small class (or builder) per kind of answer.

::

    Response (Starlette's)
     ├── _WholeAnswer              sent as is, in one body message; headers made only if the
     │    │                        ASGI path sends them (the lane writes ``own_headers``)
     │    ├── SSEResponse          a whole event stream, one write, chunked
     │    │    └── EventStreamResponse   a whole AWS event stream (Bedrock's)
     │    ├── NDJSONResponse       a whole NDJSON stream (Ollama's), one write, chunked
     │    └── JSONAnswer           an API answer's JSON body
     ├── PacedSSEResponse          a stream written frame by frame as a StreamPlan says
     │    ├── PacedEventStreamResponse   an AWS event stream, so written
     │    └── PacedNDJSONResponse  an NDJSON stream, so written
     ├── PlannedJSONResponse       a JSON body delivered as a BodyPlan says (delay, reset, cut)
     └── RecordedResponse          a recorded answer, as the upstream sent it

    json_response(body)            any JSON answer (indented, as the API writes bodies)
    error_response(error)          an APIError's status, headers and error body, in its
                                   family's shape
    paced_stream_response(frames)  the paced writer for a timed or broken stream

Reading requests and journaling answers is ``routes/base.py``'s; the bytes of these answers
on a kept-alive connection are ``answer_bytes.py``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mockserver.errors import APIError, RecordedAnswer, StreamAborted
from mockserver.families import ErrorShape
from mockserver.plans import (
    REAL_TIME,
    BodyPlan,
    PacedStream,
    Pacer,
    StreamPlan,
    deliver_body,
    paced,
)
from mockserver.render import eventstream, ndjson, sse
from mockserver.render.errors import SHAPES
from mockserver.wire.json_body import encode_json_pretty

__all__ = [
    "EventStreamResponse",
    "JSONAnswer",
    "NDJSONResponse",
    "PacedEventStreamResponse",
    "PacedNDJSONResponse",
    "PacedSSEResponse",
    "PlannedJSONResponse",
    "RecordedResponse",
    "SSEResponse",
    "error_response",
    "json_headers",
    "json_response",
    "paced_stream_response",
    "sse_headers",
]


def json_response(
    body: Any, *, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        encode_json_pretty(body),
        status_code=status,
        headers=dict(headers or {}),
        media_type="application/json",
    )


def error_response(
    error: APIError, *, request_id: str | None = None, shape: ErrorShape = "openai"
) -> Response:
    """``error`` as a family whose errors are written the ``shape`` way answers it
    (``render/errors.py``), with its request id (``None``: none)."""
    answer = SHAPES[shape].error(error, request_id=request_id)
    return Response(
        answer.content,
        status_code=answer.status,
        headers=answer.headers,
        media_type="application/json",
    )


class _WholeAnswer(Response):
    """An answer sent as is, in one body message: its bytes and its own headers. The header
    list Starlette sends is made only when the ASGI path sends it (the lane writes its answers
    from ``own_headers``)."""

    def __init__(self, body: bytes, *, headers: Mapping[str, str] | None = None) -> None:
        self.body = body
        self.status_code = 200
        self.background = None
        self.own_headers = headers or {}
        self._raw: list[tuple[bytes, bytes]] | None = None

    def _head(self) -> list[tuple[bytes, bytes]]:
        raise NotImplementedError

    @property
    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        if self._raw is None:
            self._raw = self._head()
        return self._raw

    @raw_headers.setter
    def raw_headers(self, value: list[tuple[bytes, bytes]]) -> None:
        self._raw = value


class SSEResponse(_WholeAnswer):
    """A whole event stream written in one body message (one socket write, chunked encoding).

    Starlette's ``StreamingResponse`` writes once per event; an unpaced stream has no reason to.
    No ``content-length`` is sent, so the framing on the wire is chunked, like the real API's.
    """

    media_type = "text/event-stream; charset=utf-8"

    def _head(self) -> list[tuple[bytes, bytes]]:
        return sse_headers(self.own_headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
        await send(start)
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


class NDJSONResponse(_WholeAnswer):
    """A whole NDJSON stream written in one body message, chunked (no ``content-length``), as
    Ollama's server sends one."""

    media_type = ndjson.MEDIA_TYPE

    def _head(self) -> list[tuple[bytes, bytes]]:
        return ndjson_headers(self.own_headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
        await send(start)
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


def ndjson_headers(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """An NDJSON stream's response headers: its type, then ``headers``."""
    return [
        (b"content-type", ndjson.MEDIA_TYPE.encode()),
        *((k.lower().encode(), v.encode()) for k, v in headers.items()),
    ]


def sse_headers(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """An event stream's response headers: its type, no caching, then ``headers``."""
    extra = {k.lower(): v for k, v in headers.items()}
    return [
        (b"content-type", SSEResponse.media_type.encode()),
        (b"cache-control", b"no-cache"),
        *((k.encode(), v.encode()) for k, v in extra.items()),
    ]


class EventStreamResponse(SSEResponse):
    """A whole AWS event stream (``application/vnd.amazon.eventstream``), one write, chunked."""

    media_type = eventstream.MEDIA_TYPE

    def _head(self) -> list[tuple[bytes, bytes]]:
        return eventstream_headers(self.own_headers)


def eventstream_headers(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """An AWS event stream's response headers: its type, then ``headers``."""
    extra = {k.lower(): v for k, v in headers.items()}
    return [
        (b"content-type", eventstream.MEDIA_TYPE.encode()),
        *((k.encode(), v.encode()) for k, v in extra.items()),
    ]


def json_headers(headers: Mapping[str, str], length: int) -> list[tuple[bytes, bytes]]:
    """A JSON answer's headers, as Starlette's ``Response`` orders them: ``headers`` (which
    never name the length or type themselves), then the length, then the type."""
    return [
        *((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()),
        (b"content-length", str(length).encode()),
        (b"content-type", b"application/json"),
    ]


class JSONAnswer(_WholeAnswer):
    """An API answer's JSON body with its headers (no plan: sent as is)."""

    media_type = "application/json"

    def _head(self) -> list[tuple[bytes, bytes]]:
        return json_headers(self.own_headers, len(self.body))


class PacedSSEResponse(Response):
    """A stream written frame by frame as a :class:`plans.StreamPlan` says; stops early when
    the client goes away, and lets a scripted :class:`StreamAborted` drop the connection."""

    media_type = SSEResponse.media_type

    def __init__(self, stream: PacedStream, *, headers: Mapping[str, str] | None = None) -> None:
        #: What is written, and when (the protocol's lane writes it itself: ``http/pacing.py``).
        self.stream = stream
        self.status_code = 200
        self.background = None
        self.raw_headers = self._head(headers or {})

    @staticmethod
    def _head(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
        return sse_headers(headers)

    async def _write(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        async for frame in self.stream.paced():
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def write_then_stop() -> None:
                    await self._write(send)
                    group.cancel_scope.cancel()

                group.start_soon(write_then_stop)
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()
        except BaseExceptionGroup as group_error:
            aborted = group_error.subgroup(StreamAborted)
            if aborted is not None:
                raise aborted.exceptions[0] from None
            raise


class PacedEventStreamResponse(PacedSSEResponse):
    """An AWS event stream written frame by frame as a :class:`plans.StreamPlan` says."""

    media_type = eventstream.MEDIA_TYPE

    @staticmethod
    def _head(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
        return eventstream_headers(headers)


class PacedNDJSONResponse(PacedSSEResponse):
    """An NDJSON stream written line by line as a :class:`plans.StreamPlan` says."""

    media_type = ndjson.MEDIA_TYPE

    @staticmethod
    def _head(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
        return ndjson_headers(headers)


def paced_stream_response(
    frames: Sequence[bytes],
    *,
    plan: StreamPlan,
    tail: Sequence[bytes] = (),
    error_frames: Sequence[bytes] = (),
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The paced writer, for a stream that is timed or broken (an unpaced one is one write)."""
    stream = PacedStream(frames, plan, tail, error_frames)
    return PacedSSEResponse(stream, headers=headers)


class PlannedJSONResponse(Response):
    """A JSON answer delivered as a :class:`plans.BodyPlan` says (delay, reset, truncation)."""

    media_type = "application/json"

    def __init__(self, body: bytes, *, plan: BodyPlan, headers: Mapping[str, str]) -> None:
        super().__init__(b"", headers=dict(headers), media_type=self.media_type)
        self.full_body = body
        self.plan = plan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await deliver_body(self.full_body, self.plan)
        self.body = body
        self.init_headers(self._plain_headers)
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        if self.plan.reset:  # the status line and headers are out; then the connection drops
            raise StreamAborted("scripted connection reset")
        await send({"type": "http.response.body", "body": body})

    @property
    def _plain_headers(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.raw_headers if k != b"content-length"}


#: Headers that described the recorded connection, not the answer: made anew for this one.
_CONNECTION_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}
)


class RecordedResponse(Response):
    """The answer a ``recorded:`` reply replays: its status, its headers, its bytes; a stream
    recorded as cut is cut again. At once, or (``pace: true``) at the recorded pace, timed by
    the one pacer (``faults``)."""

    def __init__(
        self,
        answer: RecordedAnswer,
        *,
        headers: dict[str, str] | None = None,
        pacer: Pacer = REAL_TIME,
    ) -> None:
        self.answer = answer
        self.pacer = pacer
        self.status_code = answer.status
        self.background = None
        own = {
            k.lower(): v
            for k, v in answer.recorded_headers.items()
            if k.lower() not in _CONNECTION_HEADERS
        }
        own.update(headers or {})
        self.body = b"" if answer.recorded_body is None else answer.recorded_body.encode()
        if answer.events is None:
            own["content-length"] = str(len(self.body))
        self.raw_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in own.items()]

    def _frame(self, event: str | None, data: str) -> bytes:
        """A recorded event as its stream framed it: an AWS event-stream message, an NDJSON line
        (Ollama's), or an SSE frame (its lines ended as recorded)."""
        kind = {k.lower(): v for k, v in self.answer.recorded_headers.items()}.get("content-type")
        if kind is not None and kind.startswith(eventstream.MEDIA_TYPE):
            return eventstream.frame_of(event or "", data.encode())
        if kind is not None and kind.startswith(ndjson.MEDIA_TYPE):
            return ndjson.text_line(data)
        return sse.text_frame(event, data, newline="\r\n" if self.answer.crlf else "\n")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = self.answer
        start = {"type": "http.response.start", "status": self.status_code}
        if answer.events is None:
            body = bytes(self.body)
            if answer.delay:
                body = await deliver_body(body, BodyPlan(delay=answer.delay), pacer=self.pacer)
            await send({**start, "headers": self.raw_headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        await send({**start, "headers": self.raw_headers})
        frames = [self._frame(event, data) for event, data in answer.events]
        # Recorded as cut: the client sees the same cut, after the last event recorded.
        cut = None if answer.complete else ("disconnect", len(frames))
        plan = StreamPlan(waits=answer.waits, cut=cut)
        async for frame in paced(frames, plan, tail=(), error_frames=(), pacer=self.pacer):
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
