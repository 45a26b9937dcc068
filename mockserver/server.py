"""Running the app under uvicorn: in the foreground (``mockserver serve``) or in a thread."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette

from mockserver.errors import MockServerError
from mockserver.faults import StreamAborted
from mockserver.ids import monotonic
from mockserver.protocol import lane_protocol
from mockserver.routes.replay import Lane

__all__ = ["BackgroundServer", "ServerStartError", "bind", "serve"]


class ServerStartError(MockServerError):
    """The server did not come up in time (or crashed while starting)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before uvicorn starts so port 0 resolves to a known port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that name their protocol,
    # and without it Nagle holds each response's body until the client's delayed ACK (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        hint = " (another server has it: pick another with --port, or 0 for any free port)"
        busy = exc.errno == errno.EADDRINUSE
        raise ServerStartError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint if busy else ''}"
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class _HideScriptedAborts(logging.Filter):
    """uvicorn logs any exception that ends a response; a scripted disconnect is not news."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], StreamAborted))


def _quiet_scripted_aborts() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _HideScriptedAborts) for f in logger.filters):
        logger.addFilter(_HideScriptedAborts())


class _OneWriteTransport:
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

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _NoWebSocket:
    """mockserver serves no WebSocket API, so uvicorn runs with ``ws="none"`` (which spares
    importing a WebSocket library at start-up: ~12 ms and ~1.3 MiB). An upgrade request is
    then answered as plain HTTP (a 404 with the API's error body, like any unknown route);
    uvicorn's advice to install a WebSocket library for it would mislead, so it is not logged."""

    def _unsupported_upgrade_warning(self) -> None:
        pass


def _protocol(lane: Lane | None) -> type[asyncio.Protocol]:
    """uvicorn's fastest installed HTTP protocol (httptools, else h11), writing once per step;
    with httptools, requests the replay ``lane`` can answer are answered by the protocol."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        class OneWriteH11Protocol(_NoWebSocket, H11Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(_OneWriteTransport(transport))  # type: ignore[arg-type]

        return OneWriteH11Protocol

    class HttpTools(_NoWebSocket, HttpToolsProtocol):
        pass

    if lane is None:

        class OneWriteProtocol(HttpTools):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(_OneWriteTransport(transport))  # type: ignore[arg-type]

        return OneWriteProtocol
    return lane_protocol(HttpTools, lane, _OneWriteTransport)


def _config(app: Starlette, *, log_level: str, access_log: bool) -> uvicorn.Config:
    _quiet_scripted_aborts()
    lane: Lane | None = getattr(app.state, "lane", None)
    return uvicorn.Config(
        app,
        log_level=log_level,
        access_log=access_log,
        lifespan="off",
        ws="none",  # see _NoWebSocket
        timeout_graceful_shutdown=2,
        http=_protocol(None if access_log else lane),  # an access log sees every request
        proxy_headers=False,  # a mock is called directly, never through a proxy
    )


def _log_like_uvicorn(level: str) -> None:
    """Our own lines (a reload, an internal error) go where uvicorn's go, at the same level:
    without a handler, Python would print only warnings and errors, and bare."""
    ours = logging.getLogger("mockserver")
    ours.handlers = list(logging.getLogger("uvicorn").handlers)  # "uvicorn.error" propagates
    ours.setLevel(level.upper())
    ours.propagate = False


def serve(
    app: Starlette,
    sock: socket.socket,
    *,
    log_level: str = "info",
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Serve until Ctrl-C (uvicorn handles the signal and shuts down cleanly)."""
    server = uvicorn.Server(_config(app, log_level=log_level, access_log=log_level == "debug"))
    _log_like_uvicorn(log_level)
    if on_ready is not None:
        on_ready()
    server.run(sockets=[sock])


class BackgroundServer:
    """A real uvicorn server on a loopback port, in a daemon thread, with a start deadline."""

    def __init__(
        self,
        app: Starlette,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        startup_timeout: float = 10.0,
        sock: socket.socket | None = None,
    ) -> None:
        self.app = app
        self.host = host
        #: ``sock``: a listening socket bound earlier (the pytest plugin reserves one).
        self._sock = sock if sock is not None else bind(host, port)
        self.port: int = self._sock.getsockname()[1]
        self._server = uvicorn.Server(_config(app, log_level="warning", access_log=False))
        self._thread = threading.Thread(
            target=self._run, name=f"mockserver:{self.port}", daemon=True
        )
        self._startup_timeout = startup_timeout
        self.crash: BaseException | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._sock])
        except BaseException as exc:
            self.crash = exc

    def start(self) -> BackgroundServer:
        self._thread.start()
        deadline = monotonic() + self._startup_timeout
        while not self._server.started:
            if self.crash is not None or not self._thread.is_alive():
                raise ServerStartError(f"mockserver crashed while starting: {self.crash!r}")
            if monotonic() > deadline:
                self.stop()
                raise ServerStartError(
                    f"mockserver did not start within {self._startup_timeout:.0f}s on {self.url}"
                )
            self._thread.join(0.005)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
