"""The inspector: a live page at ``/__mockserver/`` and the event stream that feeds it.

The page is rendered here from a template shipped in ``mockserver.http.inspector`` (no build
step, no external assets); a little vanilla JS keeps it current from ``/__mockserver/events``, a
server-sent event stream that sends a snapshot, then one small event per change. Bodies are
fetched only when a call is opened (``/__mockserver/calls/{seq}``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import suppress
from html import escape
from importlib.resources import files
from string import Template

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

import mockserver
from mockserver.faults import PRESETS
from mockserver.http.routes import labels
from mockserver.http.routes.base import DEFAULT_NAMESPACE, LANE_HEADER, engine_of
from mockserver.render import sse
from mockserver.scenario.library import builtin_names
from mockserver.store import Change, JournalEntry, Store
from mockserver.values import Json

__all__ = ["entry_summary", "routes"]


#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE = 15.0
#: Calls sent in a snapshot (the page keeps at most this many rows).
SNAPSHOT_SIZE = 300
#: The page may only talk to its own server.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
ASSET_TYPES = {
    "inspector.js": "text/javascript; charset=utf-8",
    "readers.js": "text/javascript; charset=utf-8",
    "call.js": "text/javascript; charset=utf-8",
    "inspector.css": "text/css; charset=utf-8",
}


def entry_summary(namespace: str, entry: JournalEntry) -> Json:
    """What a journal row shows: no bodies, a bounded size."""
    requested = entry.requested()
    request = requested if isinstance(requested, dict) else {}
    return {
        **_labelled(namespace),
        "seq": entry.seq,
        "number": entry.number,
        "method": entry.method,
        "path": entry.path,
        "api": entry.api,
        "model": entry.model or _text(request.get("model")),
        "stream": entry.stream or request.get("stream") is True,
        "status": entry.status,
        "rule": entry.rule,
        "miss": (entry.miss or "")[:300] or None,
        "summary": entry.summary[:160],
        "duration_ms": entry.duration_ms,
        "cut": entry.cut,
        "socket": _socket(entry),
        "default": namespace == DEFAULT_NAMESPACE,
    }


def _socket(entry: JournalEntry) -> str | None:
    """The lane of a request sent over a Responses socket (``""``: the socket's own); ``None``
    for one sent over HTTP."""
    headers = entry.request_headers
    if headers.get("upgrade", "").lower() != "websocket":
        return None
    return headers.get(LANE_HEADER, "")[:256]


def _labelled(namespace: str) -> Json:
    """A namespace as the feed shows it: by handle and label, never by its key."""
    return {"namespace": labels.handle(namespace), "label": labels.label(namespace)}


def _text(value: object) -> str | None:
    return value[:100] if isinstance(value, str) else None


def _lookup(store: Store, change: Change) -> Json | None:
    entry = store.entry(change.namespace, change.seq)
    return entry_summary(change.namespace, entry) if entry is not None else None


def _snapshot(store: Store, namespace: str | None) -> tuple[int, bytes]:
    """The newest calls (oldest first), as of a version of the feed."""
    version, changes = store.feed.recent()
    seen: set[tuple[str, int]] = set()
    rows: list[Json] = []
    for change in reversed(changes):
        key = (change.namespace, change.seq)
        if change.kind != "entry" or key in seen:
            continue
        if namespace is not None and change.namespace != namespace:
            continue
        seen.add(key)
        row = _lookup(store, change)
        if row is not None:
            rows.append(row)
        if len(rows) >= SNAPSHOT_SIZE:
            break
    rows.reverse()
    return version, sse.event_frame("snapshot", {"version": version, "calls": rows})


def _frames(store: Store, changes: list[Change], namespace: str | None) -> list[bytes]:
    """One frame per distinct change, the latest state of each (an entry may change twice)."""
    latest: dict[tuple[str, str, int], Change] = {}
    for change in changes:
        if namespace is None or change.namespace == namespace:
            latest.pop((change.kind, change.namespace, change.seq), None)
            latest[(change.kind, change.namespace, change.seq)] = change
    frames = []
    for change in latest.values():
        if change.kind == "entry":
            row = _lookup(store, change)
            if row is not None:
                frames.append(sse.event_frame("call", row))
        else:
            frames.append(sse.event_frame(change.kind, _labelled(change.namespace)))
    return frames


async def _events(store: Store, namespace: str | None) -> AsyncIterator[bytes]:
    version, frame = _snapshot(store, namespace)
    yield frame
    while True:
        if not await store.feed.wait(version, timeout=KEEPALIVE):
            yield sse.comment("keep-alive")
            continue
        changes = store.feed.since(version)
        if changes is None:  # this reader fell behind the feed's log: start afresh
            version, frame = _snapshot(store, namespace)
            yield frame
            continue
        if changes:
            version = changes[-1].version
        for frame in _frames(store, changes, namespace):
            yield frame


class EventStream(Response):
    """An endless event stream that ends cleanly when the client leaves or the server stops.

    (A server stopping cancels the responses still running: ending the body then, instead of
    letting the cancellation through, spares the log a traceback per open inspector tab.)"""

    def __init__(self, frames: AsyncIterator[bytes]) -> None:
        self.frames = frames
        self.status_code = 200
        self.background = None
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        pump = asyncio.ensure_future(self._pump(send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            pass  # the server is stopping; the page reconnects to the next one
        finally:
            pump.cancel()
            gone.cancel()
            await asyncio.gather(pump, gone, return_exceptions=True)
        if pump.done() and not pump.cancelled() and isinstance(pump.exception(), Exception):
            raise pump.exception()  # type: ignore[misc]  # a bug of ours: let the app report it
        if not gone.done() or gone.cancelled():
            with suppress(OSError, RuntimeError):
                await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _pump(self, send: Send) -> None:
        async for frame in self.frames:
            await send({"type": "http.response.body", "body": frame, "more_body": True})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def events(request: Request) -> Response:
    """``text/event-stream``: ``snapshot``, then ``call``, ``state`` and ``reset`` events."""
    store = engine_of(request).store
    given = request.query_params.get("namespace")
    namespace = labels.resolve(given, store.names()) if given else None
    return EventStream(_events(store, namespace))


class Assets:
    """The page's template, script and style, read once from the installed package."""

    def __init__(self) -> None:
        folder = files("mockserver.http.inspector")
        self.template = Template(folder.joinpath("page.html").read_text("utf-8"))
        self.static = {name: folder.joinpath(name).read_bytes() for name in ASSET_TYPES}

    async def page(self, request: Request) -> Response:
        engine = engine_of(request)
        names = list(engine.library) + [n for n in builtin_names() if n not in engine.library]
        html = self.template.substitute(
            version=escape(mockserver.__version__),
            seed=engine.settings.seed,
            default=escape(engine.default.name),
            base_url=escape(f"{request.url.scheme}://{request.url.netloc}/v1"),
            scenario_options=_options(names, selected=engine.default.name),
            preset_options=_options(list(PRESETS), selected="rate_limited"),
        )
        return HTMLResponse(
            html,
            headers={
                "content-security-policy": CONTENT_SECURITY_POLICY,
                "cache-control": "no-store",
                "referrer-policy": "no-referrer",
            },
        )

    async def asset(self, request: Request) -> Response:
        name = request.url.path.rsplit("/", 1)[-1]
        return Response(
            self.static[name],
            media_type=ASSET_TYPES[name],
            headers={"cache-control": "no-cache"},
        )


def _options(values: list[str], *, selected: str) -> str:
    return "".join(
        f'<option value="{escape(v)}"{" selected" if v == selected else ""}>{escape(v)}</option>'
        for v in values
    )


async def call_rule(request: Request) -> Response:
    """``GET /calls/{seq}/rule`` (imported on first use: it needs the record mode and YAML)."""
    from mockserver.http.routes.call_rule import call_rule as answer

    return await answer(request)


def routes() -> list[Route]:
    assets = Assets()
    return [
        Route("/", assets.page, methods=["GET"]),
        *(Route(f"/{name}", assets.asset, methods=["GET"]) for name in ASSET_TYPES),
        Route("/events", events, methods=["GET"]),
        Route("/calls/{seq}/rule", call_rule, methods=["GET"]),
    ]
