"""The one module that knows uvicorn's HTTP protocol classes from the inside.

Two speed-ups live at the protocol level, below ASGI, and both rely on attributes of uvicorn's
protocol classes that are not its public API, so they are checked for at start-up:

- **one write per step** (``OneWriteTransport``, in ``answer_bytes.py``): uvicorn writes the
  status line and headers, then the body, then (chunked) the terminator, each straight to the
  socket; here they go out together at the end of the event loop's step, so an answer is one
  segment.
- **the lane at the protocol** (``LaneProtocol`` in :func:`lane_protocol`): uvicorn turns every
  request into an ASGI task (a scope, a cycle, a task, ``receive``/``send`` round trips through
  the middleware). A request the lane can answer (``lane/lane.py``: a replay, or a turn
  endpoint's new request) is held back until its body is complete (a ``POST`` to a lane path,
  HTTP/1.1, nothing in flight on the connection), answered by the lane, and written here: the
  bytes uvicorn would have written for the same ASGI messages. When the lane has no answer, the
  request goes the usual way with the body already read.

:func:`http_protocol` gives uvicorn these protocols only when the installed uvicorn is one they
were written for (:data:`SUPPORTED_UVICORN`); on any other it logs one line and gives uvicorn's
own choice, and every request takes the ASGI path (where the lane still answers, from
:class:`~mockserver.http.lane.lane.FastLane`): the same bytes, a little slower. The tests run a
server both ways.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import urllib.parse
from collections.abc import Callable
from typing import Any

import httptools
import uvicorn

from mockserver.errors import APIError
from mockserver.http.access import MAX_TIMINGS
from mockserver.http.answer_bytes import (
    BAD_REQUEST,
    LAST_CHUNK,
    TIMED_OUT,
    OneWriteTransport,
    chunks,
    encode_answer,
    error_answer,
    header_lines,
    stream_head,
)
from mockserver.http.lane.lane import Lane
from mockserver.http.lane.recipes import BODY_LIMIT, LANE_ERROR, Answered, Key
from mockserver.http.pacing import Paced, Wheel
from mockserver.ids import monotonic

__all__ = ["SUPPORTED_UVICORN", "http_protocol", "supported", "websocket_protocol"]

log = logging.getLogger("mockserver")

#: The uvicorn releases (``major.minor``) whose protocol internals this module was written for
#: and tested with.
SUPPORTED_UVICORN = frozenset({"0.54", "0.55"})

#: How early a timer may fire and still count as on time (uvloop's timers count whole
#: milliseconds, so one set for a deadline can fire a fraction of one before it).
_TIMER_SLACK = 0.002
#: What the deadline is for between requests on a kept-alive connection.
_IDLE = "idle"


class Deadlines:
    """A mixin for uvicorn's httptools protocol: a request must send its headers within
    ``header_timeout`` seconds (of the connection's opening, or of the request's first byte),
    then its body within ``body_timeout``; past either the client gets the API's 408 (if no
    answer has started) and the connection is closed. And a request the parser refuses gets
    the API's JSON 400, not uvicorn's plain text.

    Between requests the same deadline keeps a kept-alive connection's idle time (uvicorn's
    ``timeout_keep_alive``; past it the connection is closed, as uvicorn closes it).

    The deadline moves three times per request, and most requests end long before it: so
    moving it only notes the new time, and one timer per connection, set for no later than the
    deadline, looks when it fires and is set again for the deadline as it is then (no timer
    made and cancelled per request: uvicorn makes one for each answer's keep-alive)."""

    header_timeout: float
    body_timeout: float
    #: The deadline (the loop's time; 0: none), what it is for, and its length in seconds.
    _deadline = 0.0
    _deadline_for: tuple[str, float] = ("", 0.0)
    #: The connection's timer, and when it fires.
    _timer: asyncio.TimerHandle | None = None
    _timer_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm(self.header_timeout, "headers")

    def on_message_begin(self) -> None:
        super().on_message_begin()  # type: ignore[misc]
        self._arm(self.header_timeout, "headers")

    def on_headers_complete(self) -> None:
        self.body_deadline()
        super().on_headers_complete()  # type: ignore[misc]

    def on_message_complete(self) -> None:
        self.disarm()
        super().on_message_complete()  # type: ignore[misc]

    def on_response_complete(self) -> None:
        """uvicorn's, the keep-alive timeout kept by the connection's deadline."""
        self.server_state.total_requests += 1  # type: ignore[attr-defined]
        transport: asyncio.Transport = self.transport  # type: ignore[attr-defined]
        if transport.is_closing():
            return
        self.flow.resume_reading()  # type: ignore[attr-defined]
        pipeline = self.pipeline  # type: ignore[attr-defined]
        if pipeline:  # a request that waited behind this one: its turn
            cycle, app = pipeline.pop()
            self._start_asgi_task(cycle, app)  # type: ignore[attr-defined]
        else:
            self._arm(self.timeout_keep_alive, _IDLE)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)  # type: ignore[misc]

    def body_deadline(self) -> None:
        self._arm(self.body_timeout, "body")

    def disarm(self) -> None:
        self._deadline = 0.0

    def _arm(self, seconds: float, part: str) -> None:
        loop: asyncio.AbstractEventLoop = self.loop  # type: ignore[attr-defined]
        deadline = loop.time() + seconds
        self._deadline, self._deadline_for = deadline, (part, seconds)
        timer = self._timer
        if timer is None or self._timer_at > deadline:  # none, or one that would fire late
            if timer is not None:
                timer.cancel()
            self._timer_at = deadline
            self._timer = loop.call_at(deadline, self._look)

    def _look(self) -> None:
        """The timer fired: past the deadline (if one is set) the client was too slow;
        before it, wait for it."""
        self._timer = None
        deadline = self._deadline
        if not deadline:
            return
        loop: asyncio.AbstractEventLoop = self.loop  # type: ignore[attr-defined]
        if loop.time() + _TIMER_SLACK < deadline:  # moved on since it was set: wait again
            self._timer_at = deadline
            self._timer = loop.call_at(deadline, self._look)
            return
        self._deadline = 0.0
        self._too_slow(*self._deadline_for)

    def _too_slow(self, part: str, seconds: float) -> None:
        transport: asyncio.Transport = self.transport  # type: ignore[attr-defined]
        if transport.is_closing():
            return
        if part == _IDLE:  # kept alive, and nothing asked since: closed, as uvicorn does
            transport.close()
            return
        cycle = self.cycle  # type: ignore[attr-defined]
        if cycle is None or not cycle.response_started:
            error = APIError(
                f"The request's {part} did not arrive within {seconds:g} seconds.",
                status=408,
                type="invalid_request_error",
                code="request_timeout",
            )
            transport.write(error_answer(TIMED_OUT, self._defaults_now(), error))
        transport.close()

    def handle_websocket_upgrade(self) -> None:
        self.disarm()  # the socket's protocol has the connection now: no 408 is owed
        super().handle_websocket_upgrade()  # type: ignore[misc]

    def send_400_response(self, msg: str) -> None:
        error = APIError(msg, status=400, type="invalid_request_error")
        transport: asyncio.Transport = self.transport  # type: ignore[attr-defined]
        transport.write(error_answer(BAD_REQUEST, self._defaults_now(), error))
        transport.close()

    def _defaults_now(self) -> bytes:
        return header_lines(self.server_state.default_headers)  # type: ignore[attr-defined]


def lane_protocol(base: type[Any], lane: Lane, wrap: type[Any]) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's ``HttpToolsProtocol``) answering what ``lane`` can, its transport
    wrapped in ``wrap`` (which sends one step's writes at once, and has ``send_now()``)."""

    # uvicorn's cycle, for a request the lane answers later and then hands to the full path
    # (``base`` is uvicorn's httptools protocol, on a release this module was written for).
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as cycle_class

    class LaneProtocol(base):  # type: ignore[misc]
        _held: bytearray | None = None
        _held_path = ""
        _held_query = b""
        _held_since = 0.0
        #: The paced answer being written, if any.
        _streaming: _Streaming | None = None
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
                parsed = httptools.parse_url(self.url)
                raw: str = parsed.path.decode("ascii")
                path = _unquoted(raw) if "%" in raw else raw
                if path is not None:
                    path = self.root_path + path
                    if lane.takes(path, self.headers):
                        self._held = bytearray()
                        self._held_path = path
                        self._held_query = parsed.query or b""
                        self._held_since = monotonic()
                        self._arm(self.body_timeout, "body")  # (body_deadline, a frame less)
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
            key: Key = (self._held_path, bytes(held), tuple(self.headers), self._held_query)
            if lane.waits:  # the turn waits on another process: answered when it is written
                self._answer_later(key)
                return
            try:
                answered = lane.answer(key, paced=True)
            except Exception as exc:  # our bug: to the app's one error boundary (a logged 500)
                self.scope[LANE_ERROR] = exc
                answered = None
            if not isinstance(answered, Answered):  # the full path answers (a handoff's turn)
                lane.let_through(key, self.scope, answered)
                self._release()
                super().on_message_complete()
                return
            self._held = None
            self._deadline = 0.0  # (disarm, a frame less: this runs per request)
            if answered.paced is not None:
                self._stream(answered, self._held_since, _Waiting())
                return
            self.transport.send_now(encode_answer(answered, self._default_lines()))
            lane.complete(answered, self._held_since)
            self.on_response_complete()

        def _answer_later(self, key: Key) -> None:
            """Answer ``key`` from a task that awaits the store, the connection's current
            cycle a :class:`_Waiting` meanwhile: a request the client sends after it on this
            connection (pipelined) is queued behind it by uvicorn, as behind any answer not
            yet complete."""
            body = bytes(self._held or b"")
            self._held = None
            self.disarm()
            waiting = _Waiting()
            self.cycle: Any = waiting
            scope = self.scope
            parsed = httptools.parse_url(self.url)
            scope["method"] = "POST"
            scope["path"] = self._held_path
            scope["raw_path"] = self.root_path.encode("ascii") + parsed.path
            scope["query_string"] = parsed.query or b""
            task = self.loop.create_task(self._later(key, waiting, scope, body, self._held_since))
            task.add_done_callback(self.tasks.discard)
            self.tasks.add(task)

        async def _later(
            self, key: Key, waiting: _Waiting, scope: dict[str, Any], body: bytes, since: float
        ) -> None:
            try:
                answered = await lane.answer_soon(key, paced=True)
            except Exception as exc:  # our bug: to the app's one error boundary (a logged 500)
                scope[LANE_ERROR] = exc
                answered = None
            if not isinstance(answered, Answered):  # the full path answers (a handoff's turn)
                lane.let_through(key, scope, answered)
                self._run_cycle(waiting, scope, body)
                return
            if answered.paced is not None:
                if self.transport.is_closing():  # the client went away meanwhile
                    lane.complete(answered, since, timing=[], cut=True)
                else:
                    self._stream(answered, since, waiting)
                return
            waiting.response_complete = True
            if not self.transport.is_closing():
                self.transport.send_now(encode_answer(answered, self._default_lines()))
            lane.complete(answered, since)
            if self.transport.is_closing():
                return
            if not waiting.keep_alive:  # the server is shutting down
                self.transport.close()
                return
            self.on_response_complete()

        def _stream(self, answered: Answered, since: float, waiting: _Waiting) -> None:
            """Write a paced answer: its head now, its frames from the event loop's one timer
            (``pacing.py``), the connection's cycle ``waiting`` meanwhile (a request pipelined
            behind it waits its turn)."""
            assert answered.paced is not None
            self.cycle = waiting
            self.transport.send_now(stream_head(answered, self._default_lines()))
            wheel = lane.wheel
            if wheel is None or wheel.clock is not self.loop:
                wheel = lane.wheel = Wheel(self.loop)
            streaming = self._streaming = _Streaming(self, lane, answered, since, waiting)
            paced = wheel.start(answered.paced, streaming)
            if not paced.ended:
                streaming.paced = paced

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._streaming is not None:
                self._streaming.resume()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._streaming is not None:
                self._streaming.gone()
            super().connection_lost(exc)

        def _run_cycle(self, waiting: _Waiting, scope: dict[str, Any], body: bytes) -> None:
            """The full path for a request answered later: its ASGI cycle, made here (the
            parser may have moved on to a request pipelined behind it), in its place."""
            cycle: Any = cycle_class(
                scope=scope,  # type: ignore[arg-type]  # an HTTP scope, as uvicorn made it
                transport=self.transport,
                flow=self.flow,
                logger=self.logger,
                access_logger=self.access_logger,
                access_log=self.access_log,
                default_headers=self.server_state.default_headers,
                message_event=asyncio.Event(),
                expect_100_continue=False,
                keep_alive=waiting.keep_alive,
                on_response=self.on_response_complete,
            )
            cycle.body = body  # the whole request is in: as uvicorn's on_message_complete
            cycle.more_body = False
            cycle.disconnected = waiting.disconnected
            cycle.message_event.set()
            if self.cycle is waiting:
                self.cycle = cycle
            waiting.response_complete = True
            task = self.loop.create_task(cycle.run_asgi(self.app))
            task.add_done_callback(self.tasks.discard)
            self.tasks.add(task)

        def _default_lines(self) -> bytes:
            current = self.server_state.default_headers
            seen, lines = self._defaults
            if seen is not current:
                lines = header_lines(current)
                self._defaults = (current, lines)
            return lines

    return LaneProtocol


def _unquoted(path: str) -> str | None:
    """A percent-escaped path as uvicorn puts it in the ASGI scope (decoded: a Bedrock model
    id's colons come as ``%3A``); ``None`` if the route would read another path from it (a
    decoded ``?`` or ``#``)."""
    path = urllib.parse.unquote(path)
    return None if "?" in path or "#" in path else path


class _Waiting:
    """A connection's current cycle while its answer waits on the store: what uvicorn reads
    of a cycle not yet complete (it queues a pipelined request behind it; a lost connection
    marks it ``disconnected``; a shutdown asks it not to keep the connection alive)."""

    __slots__ = ("disconnected", "keep_alive", "message_event", "response_complete")

    response_started = False
    more_body = False
    body = b""

    def __init__(self) -> None:
        self.response_complete = False
        self.disconnected = False
        self.keep_alive = True
        self.message_event = asyncio.Event()


class _Streaming:
    """A paced answer the lane's protocol writes (the :class:`~mockserver.http.pacing.Sink`
    of its stream): each step's frames as chunks, straight to the transport; at the end the
    journal entries are stamped with when each write left and announced, as ``Access`` does
    for an answer written through ASGI, and the connection goes on to its next request."""

    __slots__ = ("answered", "lane", "paced", "protocol", "since", "timing", "waiting")

    def __init__(
        self, protocol: Any, lane: Lane, answered: Answered, since: float, waiting: _Waiting
    ) -> None:
        self.protocol = protocol
        self.lane = lane
        self.answered = answered
        self.since = since
        self.waiting = waiting
        self.timing: list[float] = []
        self.paced: Paced | None = None

    def paused(self) -> bool:
        paused: bool = self.protocol.flow.write_paused
        return paused

    def write(self, pieces: list[bytes]) -> None:
        self.protocol.transport.send_now(chunks(pieces))
        self._time(len(pieces))

    def end(self, pieces: list[bytes], *, cut: bool) -> None:
        protocol = self.protocol
        transport = protocol.transport
        if not transport.is_closing():
            transport.send_now(chunks(pieces) if cut else chunks(pieces) + LAST_CHUNK)
        self._time(len(pieces) if cut else len(pieces) + 1)
        self._done(cut=cut)
        if cut or not self.waiting.keep_alive:  # a scripted disconnect, or shutting down
            transport.close()
        elif not transport.is_closing():
            protocol.on_response_complete()

    def resume(self) -> None:
        if self.paced is not None:
            self.paced.resume()

    def gone(self) -> None:
        """The client went away mid-stream: the stream stops, journaled as cut."""
        if self.paced is not None:
            self.paced.stop()
        self._done(cut=True)

    def _done(self, *, cut: bool) -> None:
        self.waiting.response_complete = True
        if self.protocol._streaming is self:
            self.protocol._streaming = None
        self.lane.complete(self.answered, self.since, timing=self.timing, cut=cut)

    def _time(self, writes: int) -> None:
        timing = self.timing
        room = MAX_TIMINGS - len(timing)
        if room > 0:
            timing.extend([round((monotonic() - self.since) * 1000, 1)] * min(writes, room))


class NoWebSocket:
    """Without a WebSocket library (:func:`websocket_protocol`), an upgrade request is
    answered as plain HTTP; uvicorn's advice to install one would mislead a user who never
    opens a socket, so it is not logged."""

    def _unsupported_upgrade_warning(self) -> None:
        pass


def websocket_protocol() -> Callable[..., asyncio.Protocol] | None:
    """What ``uvicorn.Config(ws=...)`` gets: uvicorn's protocol for the ``websockets`` library
    (the one its ``auto`` picks), imported on the first upgrade, not at start-up (~12 ms and
    ~1.3 MiB that a server nobody opens a socket to never pays); ``None`` without the library.
    """
    if importlib.util.find_spec("websockets") is None:
        return None

    def upgraded(**kwargs: Any) -> asyncio.Protocol:
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )

        return WebSocketsSansIOProtocol(**kwargs)

    return upgraded


def _fast_protocol(lane: Lane | None, *, timeouts: tuple[float, float]) -> type[asyncio.Protocol]:
    """uvicorn's fastest installed HTTP protocol (httptools, else h11), writing once per step;
    with httptools, requests the replay ``lane`` can answer are answered by the protocol, a
    slow client gets a 408 (``timeouts``: for the headers, then the body) and a malformed
    request the API's JSON 400."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        class OneWriteH11Protocol(NoWebSocket, H11Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(OneWriteTransport(transport))  # type: ignore[arg-type]

        return OneWriteH11Protocol

    class HttpTools(Deadlines, NoWebSocket, HttpToolsProtocol):
        header_timeout, body_timeout = timeouts

    if lane is None:

        class OneWriteProtocol(HttpTools):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(OneWriteTransport(transport))  # type: ignore[arg-type]

        return OneWriteProtocol
    return lane_protocol(HttpTools, lane, OneWriteTransport)


def supported(version: str) -> bool:
    """Was this module written for uvicorn ``version``?"""
    return ".".join(version.split(".")[:2]) in SUPPORTED_UVICORN


def http_protocol(
    lane: Lane | None, *, timeouts: tuple[float, float] = (10.0, 30.0), version: str | None = None
) -> type[asyncio.Protocol] | str:
    """What ``uvicorn.Config(http=...)`` gets: this module's protocols on a uvicorn they were
    written for (``version``: the installed one), else uvicorn's own choice (``"auto"``), said in
    one log line."""
    version = uvicorn.__version__ if version is None else version
    if not supported(version):
        log.warning(
            "uvicorn %s is not one mockserver's fast HTTP path was written for (%s): serving "
            "through plain ASGI (the same answers, a little slower; slow clients get no 408, "
            "a malformed request uvicorn's plain-text 400)",
            version,
            ", ".join(sorted(SUPPORTED_UVICORN)),
        )
        return "auto"
    return _fast_protocol(lane, timeouts=timeouts)
