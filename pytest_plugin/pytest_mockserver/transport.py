"""In-process transports: the SDK calls the ASGI app directly, without a socket.

openai-python 3.x (and anthropic's 2.x line) speaks ``httpx2``, earlier versions ``httpx``;
the transport is built from whichever module the installed SDK's client class comes from, so
it plugs into that SDK's ``http_client``. A response body is produced whole before the client
sees any of it (no stream timing), and the sync client's requests run on one event-loop thread
shared by the session.

A scripted connection fault (the app raises :class:`~mockserver.faults.StreamAborted` before
its answer is complete: ``disconnect_after``, ``reset``) is where a socket would drop the
connection. The library's ASGI transport would hand the partial answer over as if it were
whole, so here the body ends with the library's own ``RemoteProtocolError`` instead, worded as
over a socket: the client reads what was sent before the cut, then the SDK raises
``APIConnectionError``.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mockserver.errors import StreamAborted

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["AsyncASGITransport", "SyncASGITransport", "async_transport", "http_module"]


def http_module(sdk: str = "openai") -> ModuleType:
    """``httpx2`` or ``httpx``: the HTTP library of the installed ``sdk`` (``openai`` or
    ``anthropic``: each names its client class ``DefaultHttpxClient``)."""
    package = importlib.import_module(sdk)
    for cls in package.DefaultHttpxClient.__mro__:
        root = cls.__module__.split(".")[0]
        if root in ("httpx2", "httpx"):
            return importlib.import_module(root)
    raise RuntimeError(
        f"cannot tell which HTTP library {sdk} {package.__version__} uses "
        f"(neither httpx2 nor httpx in {sdk}.DefaultHttpxClient's bases)"
    )


def async_transport(module: ModuleType, app: ASGIApp) -> AsyncASGITransport:
    """The async transport for ``module``'s ``AsyncClient``."""
    return AsyncASGITransport(module, app)


class _Watched:
    """One request's run of the app, noting a scripted fault that cut the answer short.

    The fault is re-raised: the library's transport then ends the answer where it stopped.
    A fault after the answer was complete (or one the app answered with a whole 500) is no
    cut: over a socket the client has the whole answer by then, too.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.cut = False
        self._complete = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def watched(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self._complete = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except StreamAborted:
            self.cut = not self._complete
            raise


async def _answer(module: ModuleType, app: ASGIApp, request: Any) -> tuple[Any, bool]:
    """The app's answer to ``request`` (a server bug is a 500, as over a socket), and whether
    a scripted fault cut it short."""
    watched = _Watched(app)
    asgi = module.ASGITransport(app=watched, raise_app_exceptions=False)
    response = await asgi.handle_async_request(request)
    return response, watched.cut


def _dropped(module: ModuleType, request: Any, response: Any, body: bytes) -> Exception:
    """What ``module`` raises when the server closes the connection in the middle of a body,
    in the words it uses over a socket."""
    expected = response.headers.get("content-length")
    detail = (
        f"received {len(body)} bytes, expected {expected}"
        if expected is not None
        else "incomplete chunked read"
    )
    message = f"peer closed connection without sending complete message body ({detail})"
    error: Exception = module.RemoteProtocolError(message, request=request)
    return error


def _cut_short(
    module: ModuleType, response: Any, content: Iterator[bytes] | AsyncIterator[bytes]
) -> Any:
    """``response`` again, with ``content`` (what was sent, then the dropped connection) as
    its body."""
    return module.Response(response.status_code, headers=response.headers, content=content)


def _sync_body(body: bytes, error: Exception) -> Iterator[bytes]:
    if body:
        yield body
    raise error


async def _async_body(body: bytes, error: Exception) -> AsyncIterator[bytes]:
    if body:
        yield body
    raise error


class AsyncASGITransport:
    """An async transport (``handle_async_request``) that runs the ASGI app on the caller's
    event loop."""

    def __init__(self, module: ModuleType, app: ASGIApp) -> None:
        self._module = module
        self._app = app

    async def handle_async_request(self, request: Any) -> Any:
        response, cut = await _answer(self._module, self._app, request)
        if not cut:
            return response
        body = await response.aread()
        error = _dropped(self._module, request, response, body)
        return _cut_short(self._module, response, _async_body(body, error))

    async def aclose(self) -> None:
        """Nothing to release: the app belongs to the session."""

    async def __aenter__(self) -> AsyncASGITransport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class SyncASGITransport:
    """A sync transport (``handle_request``) that runs the ASGI app on a portal's event loop."""

    def __init__(self, module: ModuleType, app: ASGIApp, portal: BlockingPortal) -> None:
        self._module = module
        self._app = app
        self._portal = portal

    def handle_request(self, request: Any) -> Any:
        request.read()  # a body that is both a sync and an async stream
        return self._portal.call(self._send, request)

    async def _send(self, request: Any) -> Any:
        response, cut = await _answer(self._module, self._app, request)
        body = await response.aread()
        if cut:
            error = _dropped(self._module, request, response, body)
            return _cut_short(self._module, response, _sync_body(body, error))
        stream = self._module.ByteStream(body)
        return self._module.Response(response.status_code, headers=response.headers, stream=stream)

    def close(self) -> None:
        """Nothing to release: the portal belongs to the session."""

    def __enter__(self) -> SyncASGITransport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
