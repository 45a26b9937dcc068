"""WebSocket upgrades: a socket where an API family has a WebSocket mode, plain HTTP elsewhere.

An upgrade request is a ``GET`` with two more headers. At a path no family serves over a
WebSocket (``families.socket_at``) the API answers it as that ``GET`` (a 404 for an unknown
route, a list where ``GET`` lists, a 405 where ``GET`` is no method); so does
:class:`PlainUpgrades`, by handing the app the request as the ``GET`` it is and sending its
answer as the handshake's HTTP answer (ASGI's ``websocket.http.response`` extension).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.families import socket_at

__all__ = ["PlainUpgrades", "as_http"]


class PlainUpgrades:
    """ASGI middleware: an upgrade at a path without a socket mode is answered as plain HTTP."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or socket_at(scope["path"]) is not None:
            await self.app(scope, receive, send)
            return
        http_scope, http_receive, http_send = await as_http(scope, receive, send)
        await self.app(http_scope, http_receive, http_send)


async def as_http(scope: Scope, receive: Receive, send: Send) -> tuple[Scope, Receive, Send]:
    """A WebSocket handshake as the plain ``GET`` it is: its scope, and the ``receive`` and
    ``send`` of an HTTP request whose answer is the handshake's (the socket is never opened)."""
    connect = await receive()  # the server's websocket.connect: the handshake is in
    assert connect["type"] == "websocket.connect"
    http_scope = {k: v for k, v in scope.items() if k not in ("subprotocols", "extensions")}
    http_scope.update(
        type="http",
        method="GET",
        scheme="https" if scope.get("scheme") == "wss" else "http",
        http_version=scope.get("http_version", "1.1"),
    )
    asked = False

    async def http_receive() -> Message:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await receive()  # nothing comes but the client leaving
        return {"type": "http.disconnect"}

    async def http_send(message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            await send({**message, "type": "websocket.http.response.start"})
        elif kind == "http.response.body":
            await send({**message, "type": "websocket.http.response.body"})

    return http_scope, http_receive, http_send
