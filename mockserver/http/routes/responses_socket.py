"""``/v1/responses`` over a WebSocket: the Responses API's WebSocket mode.

One socket carries many requests. Each ``response.create`` client event is the request
``POST /v1/responses`` with ``stream: true`` would be, and is answered by that very request:
the session sends it through the app (access, the recording proxy, the route, the turn
endpoint, the engine, the store, the journal), in process, and sends each event of the SSE
stream it gets back as one text message, with the request's ``stream_id``. So a socket's
responses are what the HTTP stream's are, byte for byte: scenarios, pacing, faults, rate
limits, record & replay, the journal and a shared store behave alike; only the framing
differs. What only a socket has is here: the lanes (requests with one ``stream_id`` are
answered in order, lanes at once), the memory of the socket's latest response (a
``store: false`` chain continues on its socket), steering (``responses_steering.py``), and the
``error`` event that answers a refused request instead of an HTTP status.

A stream cut by a scripted disconnect closes the socket with 1011 (internal error): the
connection drops, with every lane on it, as an HTTP stream's connection does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import orjson
from starlette.websockets import WebSocket

from mockserver.credentials import journaled_headers
from mockserver.engine import Engine
from mockserver.engine.responses_context import Remembered
from mockserver.errors import APIError, StreamAborted
from mockserver.faults import PRESETS
from mockserver.http.lane.recipes import TRIED
from mockserver.http.routes.base import LANE_HEADER, namespace_from
from mockserver.http.routes.responses import REMEMBERED
from mockserver.http.routes.responses_steering import Steering, Successor
from mockserver.render import responses_socket as messages
from mockserver.render import sse
from mockserver.store import JournalEntry, Unparsed
from mockserver.values import Json
from mockserver.wire.responses_socket import Create, EventError, Steer, client_event

if TYPE_CHECKING:
    from mockserver.http.routes.responses_socket_upstream import Upstream

__all__ = ["CUT", "Session", "error_of", "responses_socket"]

log = logging.getLogger("mockserver")

#: The close code of a stream cut on purpose, or by a bug of ours: RFC 6455's internal error
#: (a close every client treats as the server's failure, and the SDKs retry).
CUT: Final = 1011
#: Lanes one socket may have at once (``websocket_stream_limit_reached`` past them).
LANES: Final = 64
#: Handshake headers that are the socket's, not a request's (``upgrade: websocket`` stays: the
#: journal tells a socket's calls by it).
_SOCKET_HEADERS: Final = frozenset(
    {
        b"connection",
        b"content-length",
        b"content-type",
        b"sec-websocket-key",
        b"sec-websocket-version",
        b"sec-websocket-extensions",
        b"sec-websocket-protocol",
    }
)
#: The headers an error came with that a client acts on (``ErrorPayload.headers``).
_ERROR_HEADERS: Final = ("retry-after", "retry-after-ms", "x-ratelimit-")


async def responses_socket(websocket: WebSocket) -> None:
    """The WebSocket route: the session, until the client closes the socket."""
    session = Session(websocket)
    await websocket.accept()
    try:
        await session.run()
    except StreamAborted:
        await _close(websocket, CUT)
    except Exception as exc:  # the one boundary of a socket: our bug, logged and kept
        log.error("internal error on the Responses socket", exc_info=exc)
        session.engine.internal_error("".join(traceback.format_exception(exc)))
        await _close(websocket, CUT)


async def _close(websocket: WebSocket, code: int) -> None:
    with contextlib.suppress(RuntimeError, OSError):  # already closed by the client
        await websocket.close(code)


class Session:
    """One socket: its lanes, what it remembers, its steering."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.engine: Engine = websocket.app.state.engine
        self.namespace = namespace_from(websocket.headers)
        self.remembered: Remembered = {}
        self.lanes: dict[str | None, asyncio.Queue[tuple[bytes, Create]]] = {}
        self.workers: list[asyncio.Task[None]] = []
        self.closed = asyncio.Event()
        self.steering = Steering(self)
        self.failure: BaseException | None = None
        self.upstream = _upstream(self)

    async def run(self) -> None:
        try:
            while self.failure is None:
                raw = await self._receive()
                if raw is None:
                    break
                await self._dispatch(raw)
        finally:
            self.closed.set()
            for worker in self.workers:
                worker.cancel()
            await asyncio.gather(*self.workers, return_exceptions=True)
            if self.upstream is not None:
                await self.upstream.close()
        if self.failure is not None:
            raise self.failure

    async def _receive(self) -> bytes | None:
        """The next client message (``None``: the socket closed, or a lane failed)."""
        receiving = asyncio.ensure_future(self.websocket.receive())
        failed = asyncio.ensure_future(self.closed.wait())
        await asyncio.wait((receiving, failed), return_when=asyncio.FIRST_COMPLETED)
        if not receiving.done():
            receiving.cancel()
            return None
        failed.cancel()
        message = receiving.result()
        if message["type"] == "websocket.disconnect":
            return None
        text = message.get("text")
        return text.encode() if text is not None else message.get("bytes") or b""

    async def _dispatch(self, raw: bytes) -> None:
        try:
            event = client_event(raw)
        except EventError as error:
            await self.refuse(error, raw, stream_id=error.stream_id)
            return
        except APIError as error:  # not a JSON object
            await self.refuse(error, raw, stream_id=None)
            return
        if isinstance(event, Steer):
            if self.upstream is not None and self.upstream.owns(event.previous_response_id):
                await self.upstream.send(raw)
                return
            await self.steering.steer(event)
        else:
            await self._queue(raw, event)

    async def _queue(self, raw: bytes, create: Create) -> None:
        lane = self.lanes.get(create.stream_id)
        if lane is None:
            if len(self.lanes) >= LANES:
                error = APIError(
                    "This WebSocket connection has reached its stream limit.",
                    status=400,
                    type="invalid_request_error",
                    code="websocket_stream_limit_reached",
                    param="stream_id",
                )
                await self.refuse(error, raw, stream_id=create.stream_id)
                return
            lane = self.lanes[create.stream_id] = asyncio.Queue()
            self.workers.append(asyncio.create_task(self._work(lane)))
        lane.put_nowait((raw, create))

    async def _work(self, lane: asyncio.Queue[tuple[bytes, Create]]) -> None:
        """A lane: its requests, one after the other (a successor made by steering first)."""
        try:
            while True:
                raw, create = await lane.get()
                if self.upstream is not None and self.upstream.forwards(create):
                    await self.upstream.forward(raw, create)
                    continue
                asked: Create | Successor | None = create
                while asked is not None:
                    body = self.steering.prepend(asked)
                    response = await self.respond(body, asked.stream_id)
                    asked = await self.steering.after(response, asked)
        except StreamAborted as cut:  # the connection drops, every lane with it
            self.failure = cut
            self.closed.set()
        except Exception as exc:
            self.failure = exc
            self.closed.set()

    async def send(self, message: bytes) -> None:
        await self.websocket.send_text(message.decode())

    async def respond(self, body: Json, stream_id: str | None) -> Json | None:
        """Answer one request on lane ``stream_id``: its events as messages, or its ``error``
        event. Its last event's response (``None``: it was refused)."""
        raw = orjson.dumps(body)
        answer = _Answer(self, stream_id)
        token = REMEMBERED.set(self.remembered)
        try:
            scope = self._scope(raw, stream_id)
            await self.websocket.app(scope, self._request(raw), answer.take)
        finally:
            REMEMBERED.reset(token)
        return await answer.finish()

    def _headers(self, stream_id: str | None) -> list[tuple[bytes, bytes]]:
        """A request's headers: the handshake's (the key, the session, the scenario), and its
        lane's name."""
        headers = [(k, v) for k, v in self.websocket.scope["headers"] if k not in _SOCKET_HEADERS]
        if stream_id is not None:
            headers.append((LANE_HEADER.encode(), stream_id.encode()))
        return headers

    def _scope(self, raw: bytes, stream_id: str | None) -> dict[str, Any]:
        """The HTTP request a ``response.create`` stands for: the handshake's headers, with
        its body's."""
        socket = self.websocket.scope
        headers = self._headers(stream_id)
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(raw))]
        return {
            "type": "http",
            "asgi": socket.get("asgi", {"version": "3.0"}),
            "http_version": "1.1",
            "method": "POST",
            "scheme": "https" if socket.get("scheme") == "wss" else "http",
            "path": "/v1/responses",
            "raw_path": b"/v1/responses",
            "root_path": socket.get("app_root_path", ""),  # the app's, not the mount's
            "query_string": socket.get("query_string", b""),
            "headers": headers,
            "client": socket.get("client"),
            "server": socket.get("server"),
            "state": dict(socket.get("state") or {}),
            TRIED: True,  # not the replay lane's: a socket remembers what it answers
        }

    def _request(self, raw: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            await self.closed.wait()
            return {"type": "http.disconnect"}

        return receive

    async def refuse(self, error: APIError, raw: bytes, *, stream_id: str | None) -> None:
        """A client event refused before it was a request: journaled as the HTTP endpoint
        journals a refused request, answered by an ``error`` event."""
        try:
            request: Any = Unparsed(raw, orjson.loads) if orjson.loads(raw) is not None else None
        except orjson.JSONDecodeError:
            request = None
        entry = JournalEntry(
            seq=0,
            method="POST",
            path="/v1/responses",
            status=error.status,
            api="responses",
            stream=True,
            request=request,
            response=error.body(),
            summary=f"{error.type}: {error.message}",
            request_headers=journaled_headers(
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in self._headers(stream_id)
            ),
        )
        self.engine.store.transact(self.namespace, lambda space: space.record(entry))
        await self.send(messages.error_event(error, stream_id=stream_id))


class _Answer:
    """The HTTP answer to one request, sent on the socket as it arrives: each SSE event as a
    message; an error answer, once whole, as an ``error`` event."""

    def __init__(self, session: Session, stream_id: str | None) -> None:
        self.session = session
        self.stream_id = stream_id
        self.status = 200
        self.headers: dict[str, str] = {}
        self.streamed = False
        self.pending = b""
        self.body = bytearray()
        self.last: Json | None = None

    async def take(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in message["headers"]
            }
            self.streamed = self.status == 200 and self.headers.get("content-type", "").startswith(
                "text/event-stream"
            )
            return
        chunk = message.get("body", b"")
        if not self.streamed:
            self.body += chunk
            return
        frames = (self.pending + chunk).split(b"\n\n")
        self.pending = frames.pop()
        for frame in frames:
            await self._event(frame + b"\n\n")

    async def _event(self, frame: bytes) -> None:
        payload = sse.data_of(frame)
        if payload is None:  # a keep-alive comment: a socket keeps itself alive
            return
        try:
            event = orjson.loads(payload)
        except orjson.JSONDecodeError:  # a malformed event, scripted: sent as it is
            event = None
        if isinstance(event, dict) and event.get("type") == "error":
            await self.session.send(_stream_error(event, stream_id=self.stream_id))
            return
        if isinstance(event, dict) and isinstance(event.get("response"), dict):
            self.last = event["response"]
            self.session.steering.seen(event, self.stream_id)
        await self.session.send(messages.message(frame, self.stream_id))

    async def finish(self) -> Json | None:
        """After the answer: an error answer's ``error`` event; the response it ended with."""
        if self.streamed:
            return self.last
        error = error_of(self.status, bytes(self.body), self.headers)
        await self.session.send(messages.error_event(error, stream_id=self.stream_id))
        return None


def _upstream(session: Session) -> Upstream | None:
    """The socket to the upstream of a namespace being recorded (``None``: none is)."""
    recorders = session.websocket.app.state.recorder
    if recorders is None:
        return None
    from mockserver.http.proxy import recorder_of
    from mockserver.http.routes.responses_socket_upstream import Upstream

    recorder = recorder_of(recorders, session.namespace)
    return Upstream(session, recorder) if recorder is not None else None


def error_of(status: int, body: bytes, headers: dict[str, str]) -> APIError:
    """The error an HTTP error answer states (a 200 that is not a stream: a recording of a
    request that was not streamed, which a socket cannot send)."""
    try:
        details = orjson.loads(body).get("error")
    except (orjson.JSONDecodeError, AttributeError):
        details = None
    if status == 200 or not isinstance(details, dict):
        return APIError(
            "The answer to this request is not a stream, and a WebSocket sends only streams.",
            status=500 if status == 200 else status,
        )
    kept = {k: v for k, v in headers.items() if k.startswith(_ERROR_HEADERS)}
    extra = {k: v for k, v in details.items() if k not in ("message", "type", "param", "code")}
    return APIError(
        str(details.get("message", "")),
        status=status,
        type=str(details.get("type") or "invalid_request_error"),
        code=details.get("code"),
        param=details.get("param"),
        headers=kept,
        extra=extra,
    )


def _stream_error(event: Json, *, stream_id: str | None) -> bytes:
    """A stream's ``error`` event as a socket sends it: its details under ``error``, their type
    the one the preset with its code has (an SSE ``error`` event carries no type)."""
    code = event.get("code")
    kind = next((p.type for p in PRESETS.values() if p.code == code), "server_error")
    error = APIError(str(event.get("message", "")), type=kind, param=event.get("param"))
    return messages.stream_error(event, error, stream_id=stream_id)
