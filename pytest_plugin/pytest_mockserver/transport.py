"""In-process transports: the SDK calls the ASGI app directly, without a socket.

openai-python 3.x speaks ``httpx2``, earlier versions ``httpx``; the transport is built from
whichever module the installed SDK's client class comes from, so it plugs into that SDK's
``http_client``. The limits: a response body is produced whole before the client sees any of
it (no stream timing, no disconnect-mid-stream faults), and the sync client's requests run on
one event-loop thread shared by the session.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal
    from starlette.types import ASGIApp

__all__ = ["SyncASGITransport", "async_transport", "http_module"]


def http_module() -> ModuleType:
    """``httpx2`` or ``httpx``: the HTTP library of the installed ``openai`` SDK."""
    import openai

    for cls in openai.DefaultHttpxClient.__mro__:
        root = cls.__module__.split(".")[0]
        if root in ("httpx2", "httpx"):
            return importlib.import_module(root)
    raise RuntimeError(
        f"cannot tell which HTTP library openai {openai.__version__} uses "
        "(neither httpx2 nor httpx in openai.DefaultHttpxClient's bases)"
    )


def async_transport(module: ModuleType, app: ASGIApp) -> Any:
    """The library's own ASGI transport; a server bug is a 500 answer, as over a socket."""
    return module.ASGITransport(app=app, raise_app_exceptions=False)


class SyncASGITransport:
    """A sync transport (``handle_request``) that runs the ASGI app on a portal's event loop."""

    def __init__(self, module: ModuleType, app: ASGIApp, portal: BlockingPortal) -> None:
        self._module = module
        self._asgi = async_transport(module, app)
        self._portal = portal

    def handle_request(self, request: Any) -> Any:
        request.read()  # a body that is both a sync and an async stream
        return self._portal.call(self._send, request)

    async def _send(self, request: Any) -> Any:
        response = await self._asgi.handle_async_request(request)
        body = await response.aread()
        stream = self._module.ByteStream(body)
        return self._module.Response(response.status_code, headers=response.headers, stream=stream)

    def close(self) -> None:
        """Nothing to release: the portal belongs to the session."""

    def __enter__(self) -> SyncASGITransport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
