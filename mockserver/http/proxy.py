"""The recording proxy: an ASGI layer that sends a request to the upstream or to the
recordings (the :class:`~mockserver.record.recorder.Recorder` decides), streams the upstream's
answer back to the client as it arrives, event by event, and captures it.

An upstream that cannot be reached is the client's 502 within the connect timeout, and one that
does not answer, a 504 within the read timeout, both in the API's error shape; an answer the
upstream cuts is cut for the client too, and recorded as cut.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.credentials import credentials_in
from mockserver.errors import APIError, NoMatchError, StreamAborted
from mockserver.families import AZURE_PREFIX, FAMILIES, Provider, family_of
from mockserver.ids import RealClock
from mockserver.record.capture import Capture
from mockserver.record.exchange import Exchange
from mockserver.record.recorder import Recorder, Recorders
from mockserver.record.sigv4 import resign, signing_scope
from mockserver.record.upstream import upstream_headers, upstream_query, upstream_url

if TYPE_CHECKING:
    from mockserver.engine import Engine

__all__ = ["RecordingProxy", "keep", "recorder_of"]

#: Headers of one hop, not of the request or its answer: never passed on.
_HOP = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "transfer-encoding",
        "te",
        "trailer",
        "upgrade",
        "content-length",
        "accept-encoding",
        "content-encoding",
    }
)


#: Where API calls start: the first segment of each family's path (``/v1/``, ``/v1beta/``,
#: ``/openai/``, ``/model/``…).
_API_ROOTS = tuple(dict.fromkeys("/" + family.path.split("/")[1] + "/" for family in FAMILIES))


class NoRecordingError(NoMatchError):
    """Replay only: no recording answers the request."""

    default_code = "mockserver_no_recording"


class RecordingProxy:
    """Forwards to the upstream or replays, per request; writes what the upstream answered."""

    def __init__(self, app: ASGIApp, *, recorder: Recorder | Recorders, engine: Engine) -> None:
        self.app = app
        self.recorders = recorder
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _api_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        lowered = {k.lower(): v for k, v in headers}
        recorder = self._recorder_for(lowered)
        if recorder is None:  # a namespace nobody records: the server's own
            await self.app(scope, receive, send)
            return
        body = await _whole_body(receive)
        decision = recorder.decide(scope["method"], scope["path"], body, lowered)
        if decision == "replay":
            await self.app(scope, _replayed(body, receive), send)
        elif decision == "forward":
            await self._forward(recorder, scope, body, headers, send)
        else:
            await _answer_error(NoRecordingError(decision), send)

    def _recorder_for(self, headers: dict[str, str]) -> Recorder | None:
        if isinstance(self.recorders, Recorder):
            return self.recorders
        from mockserver.http.routes.base import namespace_from

        return recorder_of(self.recorders, namespace_from(headers))

    def _upstream(self, recorder: Recorder) -> httpx.AsyncClient:
        """A client for one request (the server runs without a lifespan to close a shared one
        in; a recording's connections are few)."""
        recording = recorder.recording
        timeout = httpx.Timeout(recording.read_timeout, connect=recording.connect_timeout)
        return httpx.AsyncClient(timeout=timeout, follow_redirects=False)

    def _outgoing(
        self, recorder: Recorder, headers: Iterable[tuple[str, str]], *, provider: Provider
    ) -> list[tuple[str, str]]:
        out = [
            (k, v)
            for k, v in headers
            if k.lower() not in _HOP and not k.lower().startswith("x-mockserver-")
        ]
        out = upstream_headers(out, key=recorder.recording.key_for(provider), provider=provider)
        return [*out, ("accept-encoding", "identity")]

    async def _forward(
        self,
        recorder: Recorder,
        scope: Scope,
        body: bytes,
        headers: list[tuple[str, str]],
        send: Send,
    ) -> None:
        upstream = recorder.recording.upstream
        assert upstream is not None
        query = scope.get("query_string", b"").decode("latin-1")
        provider = _provider(scope["path"], headers, query)
        sent = upstream_query(query, key=recorder.recording.key_for(provider))
        url = upstream_url(upstream, _sent_path(scope, provider), sent, provider=provider)
        outgoing = self._outgoing(recorder, headers, provider=provider)
        if provider == "aws":
            outgoing = _signed(recorder, scope["method"], url, outgoing, body)
        capture = Capture(scope["method"], scope["path"], query, headers, body)
        clock = asyncio.get_running_loop().time
        start = clock()
        async with self._upstream(recorder) as client:
            try:
                request = client.build_request(scope["method"], url, headers=outgoing, content=body)
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:  # unreachable, or silent: a 502 or 504, not a hang
                await _answer_error(_upstream_error(exc, upstream), send)
                return
            try:
                complete = await _pass_through(response, capture, send, since=start)
            finally:
                await response.aclose()
        exchange = capture.finish(complete=complete, elapsed_ms=(clock() - start) * 1000)
        secrets = credentials_in(headers, query) + credentials_in(outgoing)
        keep(recorder, self.engine, exchange, secrets=secrets)
        if not complete:
            raise StreamAborted("the upstream cut its answer")
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def keep(recorder: Recorder, engine: Engine, exchange: Exchange, *, secrets: list[str]) -> None:
    """Write what the upstream answered; once the recordings answer more (``new_episodes``),
    serve them."""
    reloaded = recorder.captured(exchange, secrets=secrets)
    if reloaded is None:
        return
    if recorder.on_reload is not None:
        recorder.on_reload(reloaded)
    else:
        engine.replace_scenarios([reloaded])


def recorder_of(recorders: Recorder | Recorders, namespace: str) -> Recorder | None:
    """The recorder of ``namespace`` (``None``: nobody records it; the server answers)."""
    return recorders if isinstance(recorders, Recorder) else recorders.get(namespace)


def _api_path(path: str) -> bool:
    """Is ``path`` an API's (recorded or replayed), not the control plane's?"""
    return path.startswith(_API_ROOTS)


def _provider(path: str, headers: list[tuple[str, str]], query: str) -> Provider:
    """Whose API the call is: its family's provider; elsewhere Azure OpenAI's (its paths),
    Google's (a Google key where paths are shared: ``/v1/models``), else OpenAI's."""
    from mockserver.http.routes.base import error_shape

    family = family_of(path)
    if family is not None:
        return family.provider
    if path.startswith(AZURE_PREFIX + "/"):
        return "azure"
    lowered = {k.lower(): v for k, v in headers}
    return "google" if error_shape(path, lowered, dict(parse_qsl(query))) == "google" else "openai"


def _signed(
    recorder: Recorder, method: str, url: str, headers: list[tuple[str, str]], body: bytes
) -> list[tuple[str, str]]:
    """A Bedrock request signed again for the upstream with the recording's AWS credentials
    (its client signed it for this proxy's host); as it is without them, with a recording key
    (the one key: a Bedrock API key, sent as a bearer token), or when nothing says its
    region."""
    recording = recorder.recording
    if recording.aws is None or recording.key_for("aws") is not None:
        return headers
    scope = signing_scope(headers, url, region=recording.aws.region)
    if scope is None:
        return headers
    now = RealClock().now()
    return resign(method, url, headers, body, credentials=recording.aws, scope=scope, now=now)


def _sent_path(scope: Scope, provider: Provider) -> str:
    """The path sent upstream: Bedrock's as it came (a model id's ``%3A`` and an ARN's ``%2F``
    kept), the others' as read."""
    raw = scope.get("raw_path")
    if provider == "aws" and isinstance(raw, bytes):
        return raw.decode("latin-1")
    path: str = scope["path"]
    return path


async def _pass_through(
    response: httpx.Response, capture: Capture, send: Send, *, since: float
) -> bool:
    """Send the upstream's answer on as it arrives, capturing it; ``False`` if it was cut."""
    clock = asyncio.get_running_loop().time
    pairs = response.headers.multi_items()
    capture.respond(response.status_code, pairs)
    passed = [
        (k.lower().encode("latin-1"), v.encode("latin-1"))
        for k, v in pairs
        if k.lower() not in _HOP
    ]
    await send({"type": "http.response.start", "status": response.status_code, "headers": passed})
    try:
        async for chunk in response.aiter_bytes():
            capture.receive(chunk, offset_ms=(clock() - since) * 1000)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except httpx.HTTPError:  # cut, or silent past the read timeout: cut for the client too
        return False
    return True


def _upstream_error(exc: httpx.HTTPError, upstream: str) -> APIError:
    if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
        return APIError(
            f"mockserver: cannot reach the upstream {upstream} ({type(exc).__name__}: {exc}).",
            status=502,
            type="server_error",
            code="upstream_unreachable",
        )
    if isinstance(exc, httpx.TimeoutException):
        return APIError(
            f"mockserver: the upstream {upstream} did not answer in time ({type(exc).__name__}).",
            status=504,
            type="server_error",
            code="upstream_timeout",
        )
    return APIError(
        f"mockserver: the upstream {upstream} failed ({type(exc).__name__}: {exc}).",
        status=502,
        type="server_error",
        code="upstream_failed",
    )


async def _answer_error(error: APIError, send: Send) -> None:
    from mockserver.http.responses import error_response

    response = error_response(error)
    await send(
        {"type": "http.response.start", "status": error.status, "headers": response.raw_headers}
    )
    await send({"type": "http.response.body", "body": response.body, "more_body": False})


async def _whole_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the app: the body already read, then the client's own messages."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
