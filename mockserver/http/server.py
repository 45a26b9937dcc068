"""Running the app under uvicorn: in the foreground (``mockserver serve``) or in a thread."""

from __future__ import annotations

import errno
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

import uvicorn
from starlette.applications import Starlette

from mockserver.errors import ServerStartError, StreamAborted
from mockserver.http.lane.lane import Lane
from mockserver.http.protocol import http_protocol, websocket_protocol
from mockserver.ids import monotonic
from mockserver.settings import Settings

__all__ = ["BackgroundServer", "bind", "serve"]


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


def _config(
    app: Starlette, *, log_level: str, access_log: bool, ours: bool = False
) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` (with ``ours``, our own log lines go where uvicorn's
    go, from before the protocol is chosen: its choice may be worth a line)."""
    _quiet_scripted_aborts()
    lane: Lane | None = getattr(app.state, "lane", None)
    config = uvicorn.Config(  # configures uvicorn's logging
        app,
        log_level=log_level,
        access_log=access_log,
        lifespan="off",
        ws=websocket_protocol() or "none",  # type: ignore[arg-type]  # a protocol factory
        timeout_graceful_shutdown=2,
        proxy_headers=False,  # a mock is called directly, never through a proxy
    )
    if ours:
        _log_like_uvicorn(log_level)
    settings: Settings = getattr(app.state, "settings", None) or Settings()  # any Starlette app
    config.http = http_protocol(
        None if access_log else lane,  # an access log sees every request
        timeouts=(settings.header_timeout, settings.body_timeout),
    )
    return config


def _log_like_uvicorn(level: str) -> None:
    """Our own lines (a reload, an internal error) go where uvicorn's go, at the same level:
    without a handler, Python would print only warnings and errors, and bare."""
    ours = logging.getLogger("mockserver")
    ours.handlers = list(logging.getLogger("uvicorn").handlers)  # "uvicorn.error" propagates
    ours.setLevel(level.upper())
    ours.propagate = False


class _Server(uvicorn.Server):
    """uvicorn's server, telling the app's store when its event loop serves and when it
    stops (a shared store keeps a pipe to Redis on the loop, closed before the loop is)."""

    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        store = getattr(getattr(app.state, "engine", None), "store", None)
        self._turns = getattr(store, "turns", None)

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        turns = self._turns
        if turns is not None:
            turns.loop_starts()
        try:
            await super().serve(sockets)
        finally:
            if turns is not None:
                turns.loop_ends()


class _Terminated(Exception):
    """SIGTERM, once uvicorn has shut down on it (see :func:`_sigterm_raises`)."""


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """uvicorn shuts down cleanly on SIGTERM as on Ctrl-C, then raises the signal again for
    the handler it found in place: by default that kills the process, and nothing after
    ``run`` would run. Finding this one instead, the signal ends ``run`` with
    :class:`_Terminated`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(
    app: Starlette,
    sock: socket.socket,
    *,
    log_level: str = "info",
    on_ready: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> None:
    """Serve until Ctrl-C or SIGTERM (uvicorn shuts down cleanly on either: SIGTERM returns,
    Ctrl-C raises ``KeyboardInterrupt``), then call ``on_stop`` (also after a crash)."""
    config = _config(app, log_level=log_level, access_log=log_level == "debug", ours=True)
    server = _Server(config, app)
    if on_ready is not None:
        on_ready()
    try:
        with _sigterm_raises():
            server.run(sockets=[sock])
    except _Terminated:
        pass
    finally:
        if on_stop is not None:
            on_stop()


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
        self._server = _Server(_config(app, log_level="warning", access_log=False), app)
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
