"""Recording a Responses socket: the requests the recorder forwards go to the upstream's socket.

A client's socket in a namespace being recorded opens one socket to the upstream (its
``/responses``, with the handshake's headers, the key replaced by the recording's if it has
one) on the first request the recorder forwards, and keeps it while the client's is open. Each
forwarded ``response.create`` is sent as the client sent it; every message the upstream sends
is passed on to the client as it arrives, and the messages of the request's lane captured
(``record/responses_socket.py``) until its response ends, then written as the cassette writes
an HTTP exchange. Requests the recordings answer are the server's, as on HTTP. Steering a
forwarded response is forwarded; a successor the upstream makes for it is passed on, and not
recorded (no request of the client's asked for it).

The upstream's failures reach the client as over HTTP: an upstream that cannot be reached is
an ``error`` event with the proxy's 502, a handshake it refuses one with its own status and
error, one silent past the read timeout a 504 (or a cut, once the answer started); a socket the
upstream closes mid-answer is recorded as cut and closes the client's with 1011.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from mockserver.credentials import credentials_in
from mockserver.errors import APIError, StreamAborted
from mockserver.http.proxy import keep
from mockserver.record.recorder import Recorder
from mockserver.record.responses_socket import SocketCapture
from mockserver.render import responses_socket as messages
from mockserver.wire.responses_socket import Create

if TYPE_CHECKING:
    from mockserver.http.routes.responses_socket import Session

__all__ = ["Upstream"]

#: Handshake headers that are this hop's, not the client's to pass on.
_HOP: Final = frozenset(
    {
        "host",
        "connection",
        "upgrade",
        "content-length",
        "sec-websocket-key",
        "sec-websocket-version",
        "sec-websocket-extensions",
        "sec-websocket-protocol",
        "user-agent",
    }
)

Outcome = Literal["done", "cut", "silent"]


@dataclass
class _Waiting:
    """A forwarded request waiting for its answer on its lane."""

    capture: SocketCapture
    start: float
    moved: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    heard: bool = False


class Upstream:
    """One client socket's socket to the upstream (see the module's docstring)."""

    def __init__(self, session: Session, recorder: Recorder) -> None:
        self.session = session
        self.recorder = recorder
        scope = session.websocket.scope
        self.headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        self.query: str = scope.get("query_string", b"").decode("latin-1")
        self.connection: ClientConnection | None = None
        self.opening = asyncio.Lock()
        self.reader: asyncio.Task[None] | None = None
        self.waiting: dict[str | None, _Waiting] = {}
        #: The responses the upstream made on this socket (steering them is the upstream's).
        self.responses: set[str] = set()

    def forwards(self, create: Create) -> bool:
        """Whether ``create`` goes to the upstream (else the server answers it)."""
        headers = {k.lower(): v for k, v in self.headers}
        body = orjson.dumps(create.body)
        return self.recorder.decide("POST", "/v1/responses", body, headers) == "forward"

    def owns(self, response_id: str) -> bool:
        return response_id in self.responses

    async def send(self, raw: bytes) -> None:
        """Pass a client event on as it came (steering what the upstream streams)."""
        if self.connection is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.connection.send(raw.decode())

    async def forward(self, raw: bytes, create: Create) -> None:
        """Send ``create`` upstream, pass its answer on, and write it (see the module)."""
        try:
            connection = await self._open()
        except APIError as refused:
            await self.session.send(messages.error_event(refused, stream_id=create.stream_id))
            return
        clock = asyncio.get_running_loop().time
        answered = connection.response
        capture = SocketCapture(
            create.body,
            query=self.query,
            request_headers=self.headers,
            response_headers=list(answered.headers.raw_items()) if answered else [],
        )
        waiting = self.waiting[create.stream_id] = _Waiting(capture, clock())
        try:
            with contextlib.suppress(ConnectionClosed):  # the reader says it closed
                await connection.send(raw.decode())
            outcome = await self._answered(waiting)
        finally:
            del self.waiting[create.stream_id]
        if outcome == "silent":
            await self._drop(connection)
            await self.session.send(
                messages.error_event(self._silent(), stream_id=create.stream_id)
            )
            return
        elapsed = (clock() - waiting.start) * 1000
        exchange = capture.finish(complete=outcome == "done", elapsed_ms=elapsed)
        keep(self.recorder, self.session.engine, exchange, secrets=self._secrets())
        if outcome == "cut":
            await self._drop(connection)
            raise StreamAborted("the upstream's socket closed mid-answer")

    def _silent(self) -> APIError:
        upstream = self.recorder.recording.upstream
        return APIError(
            f"mockserver: the upstream {upstream} did not answer in time (on its socket).",
            status=504,
            type="server_error",
            code="upstream_timeout",
        )

    async def _answered(self, waiting: _Waiting) -> Outcome:
        """Until the request's answer is whole, the upstream's socket closes, or it is silent
        for longer than the read timeout."""
        patience = self.recorder.recording.read_timeout
        while not waiting.capture.done:
            if waiting.closed:
                return "cut"
            waiting.moved.clear()
            try:
                await asyncio.wait_for(waiting.moved.wait(), patience)
            except TimeoutError:
                return "cut" if waiting.heard else "silent"
        return "done"

    async def _open(self) -> ClientConnection:
        async with self.opening:
            if self.connection is not None:
                return self.connection
            recording = self.recorder.recording
            upstream = recording.upstream
            assert upstream is not None
            url = "ws" + upstream.rstrip("/").removeprefix("http") + "/responses"
            url += f"?{self.query}" if self.query else ""
            agent = next((v for k, v in self.headers if k.lower() == "user-agent"), None)
            try:
                connection = await connect(
                    url,
                    additional_headers=self._outgoing(),
                    user_agent_header=agent,
                    open_timeout=recording.connect_timeout,
                    proxy=None,
                    max_size=None,
                )
            except InvalidStatus as refused:  # the upstream's own answer to the handshake
                from mockserver.http.routes.responses_socket import error_of

                answer = refused.response
                headers = {k.lower(): v for k, v in answer.headers.raw_items()}
                raise error_of(answer.status_code, bytes(answer.body or b""), headers) from None
            except (OSError, TimeoutError, InvalidHandshake) as exc:
                raise APIError(
                    f"mockserver: cannot reach the upstream {upstream} "
                    f"({type(exc).__name__}: {exc}).",
                    status=502,
                    type="server_error",
                    code="upstream_unreachable",
                ) from None
            self.connection = connection
            self.reader = asyncio.create_task(self._read(connection))
            return connection

    def _outgoing(self) -> list[tuple[str, str]]:
        out = [
            (k, v)
            for k, v in self.headers
            if k.lower() not in _HOP and not k.lower().startswith("x-mockserver-")
        ]
        key = self.recorder.recording.key_for("openai")
        if key is not None:
            out = [(k, v) for k, v in out if k.lower() not in ("authorization", "api-key")]
            out.append(("authorization", f"Bearer {key}"))
        return out

    def _secrets(self) -> list[str]:
        return credentials_in(self.headers, self.query) + credentials_in(self._outgoing())

    async def _read(self, connection: ClientConnection) -> None:
        """Every message of the upstream, passed on to the client and to its lane's capture."""
        clock = asyncio.get_running_loop().time
        try:
            async for message in connection:
                text = message if isinstance(message, str) else message.decode()
                await self.session.send(text.encode())
                self._route(text, now=clock())
        except ConnectionClosed:
            pass
        finally:
            if self.connection is connection:
                self.connection = None
            for waiting in self.waiting.values():
                waiting.closed = True
                waiting.moved.set()

    def _route(self, text: str, *, now: float) -> None:
        try:
            event = orjson.loads(text)
        except orjson.JSONDecodeError:
            event = None
        lane = event.get("stream_id") if isinstance(event, dict) else None
        if isinstance(event, dict) and event.get("type") == "response.created":
            response = event.get("response")
            if isinstance(response, dict) and isinstance(response.get("id"), str):
                self.responses.add(response["id"])
        waiting = self.waiting.get(lane if isinstance(lane, str) else None)
        if waiting is None:  # a successor the upstream made for steering: passed on only
            return
        waiting.capture.receive(text, offset_ms=(now - waiting.start) * 1000)
        waiting.heard = True
        waiting.moved.set()

    async def _drop(self, connection: ClientConnection) -> None:
        if self.connection is connection:
            self.connection = None
        await connection.close()

    async def close(self) -> None:
        """Close the upstream's socket with the client's."""
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)
