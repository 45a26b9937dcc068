"""The ASGI application: routes mounted per API family, errors mapped once, here."""

from __future__ import annotations

import logging
import traceback
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.datastructures import Headers, QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.engine import Engine
from mockserver.errors import APIError, InternalServerError, StreamAborted
from mockserver.families import AZURE_PREFIX, ErrorShape, errors_at
from mockserver.http.access import Access, check_exposure
from mockserver.http.endpoint import Endpoints
from mockserver.http.lane.lane import FastLane, Lane
from mockserver.http.lane.recipes import SIZE, Replays
from mockserver.http.responses import error_response
from mockserver.http.routes import chat
from mockserver.http.routes.base import error_shape, refusal
from mockserver.http.routes.lazy import LazyRoutes
from mockserver.http.upgrades import PlainUpgrades
from mockserver.render.errors import SHAPES
from mockserver.settings import Settings

if TYPE_CHECKING:
    from mockserver.record.recorder import Recorder, Recorders

__all__ = ["create_app"]

log = logging.getLogger("mockserver")
GEMINI = "mockserver.http.routes.gemini"


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    route = f"{request.method} {request.url.path}"
    shape = _shape(request.scope)
    error: APIError
    if exc.status_code in (404, 405):
        error = SHAPES[shape].unknown_route(route, status=exc.status_code)
    else:
        error = APIError(exc.detail, status=exc.status_code, type="invalid_request_error")
    path = request.url.path
    if path.startswith("/v1/") or errors_at(path) != "openai":  # an API call, if a wrong one:
        return refusal(request, error)  # journaled too
    return error_response(error, shape=shape)


def _shape(scope: Scope) -> ErrorShape:
    """The error shape of a request (``routes.base.error_shape``)."""
    query = QueryParams(scope.get("query_string", b""))
    return error_shape(scope.get("path", ""), Headers(scope=scope), query)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, APIError)
    return error_response(exc, shape=_shape(request.scope))


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client closed the connection in the middle of its body: nobody is left to answer,
    and it is no bug of ours (not logged, not kept as an internal error)."""
    return Response(status_code=400)


async def _unexpected(request: Request, exc: Exception) -> Response:
    """A bug of ours: log it, keep it for the pytest plugin, answer like the real API's 500."""
    if isinstance(exc, StreamAborted):  # a scripted disconnect, not a bug
        return Response(status_code=500)
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    engine: Engine = request.app.state.engine
    engine.internal_error("".join(traceback.format_exception(exc)))
    return error_response(
        InternalServerError(
            "The server had an error while processing your request. Sorry about that!"
        ),
        shape=_shape(request.scope),
    )


class ErrorBoundary:
    """Our bugs, answered as the real API's 500 on a connection that stays open.

    Starlette's own boundary re-raises once it has answered (for the server to log), and
    uvicorn then drops the connection, with any request the client had already sent on it.
    This one answers, logs and keeps the bug for the pytest plugin (``_unexpected``), and
    re-raises only what must drop the connection: a scripted disconnect, or a bug once the
    answer has started (its status line is out; only a cut can say it failed)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:  # the one boundary: everything else is mapped where it arises
            if started or isinstance(exc, StreamAborted):
                raise
            if isinstance(exc, APIError):  # raised in front of the routes (the fast lane's
                response = error_response(exc, shape=_shape(scope))  # store lost: a 503)
            else:
                response = await _unexpected(Request(scope), exc)
            await response(scope, receive, send)


def _openai_routes() -> list[BaseRoute]:
    """OpenAI's API but for Chat Completions (which start-up imports), imported on first use:
    their wire models cost start-up time and memory."""
    return [
        LazyRoutes("mockserver.http.routes.responses", prefixes=["/responses"]),
        LazyRoutes("mockserver.http.routes.conversations", prefixes=["/conversations"]),
        LazyRoutes("mockserver.http.routes.models", prefixes=["/models"]),
        LazyRoutes("mockserver.http.routes.moderations", prefixes=["/moderations"]),
        LazyRoutes("mockserver.http.routes.embeddings", prefixes=["/embeddings"]),
        LazyRoutes("mockserver.http.routes.completions", prefixes=["/completions"]),
    ]


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    recorder: Recorder | Recorders | None = None,
) -> Starlette:
    settings = settings or Settings()
    check_exposure(settings)
    engine = engine or Engine(settings)
    app = Starlette(
        routes=[
            Mount(
                "/v1",
                routes=[
                    *chat.routes(),
                    # Gemini's first: a GET /v1/models sent with a Google key is its.
                    LazyRoutes(GEMINI, prefixes=["/models", "/projects/", "/publishers/"]),
                    *_openai_routes(),
                    LazyRoutes("mockserver.http.routes.messages", prefixes=["/messages"]),
                ],
            ),
            # Azure OpenAI: its rows' paths first (OpenAI's endpoints, in Azure's shape), then
            # OpenAI's API as it is under /openai/v1, and the stored responses.
            Mount(
                AZURE_PREFIX,
                routes=[
                    LazyRoutes("mockserver.http.routes.azure", prefixes=["/"]),
                    Mount("/v1", routes=[*chat.routes(), *_openai_routes()]),
                    LazyRoutes("mockserver.http.routes.responses", prefixes=["/responses"]),
                ],
            ),
            # The Gemini API's other versions: the Developer API's v1beta, Vertex AI's v1beta1.
            Mount("/v1beta", routes=[LazyRoutes(GEMINI, prefixes=["/"])]),
            Mount("/v1beta1", routes=[LazyRoutes(GEMINI, prefixes=["/"])]),
            # Bedrock Runtime: /model/{modelId}/{operation}
            LazyRoutes("mockserver.http.routes.converse", prefixes=["/model/"]),
            # Ollama's own API.
            Mount(
                "/api",
                routes=[
                    LazyRoutes(
                        "mockserver.http.routes.ollama",
                        "mockserver.http.routes.ollama_models",
                        prefixes=["/"],
                    )
                ],
            ),
            Mount(
                "/__mockserver",
                routes=[
                    LazyRoutes(
                        "mockserver.http.routes.control",
                        "mockserver.http.routes.inspector",
                        prefixes=["/"],
                    )
                ],
            ),
        ],
        exception_handlers={
            HTTPException: _http_error,
            APIError: _api_error,
            ClientDisconnect: _client_gone,
            Exception: _unexpected,
        },
    )
    replays = Replays(size=SIZE if settings.replay else 0)
    endpoints = Endpoints(engine, replays)
    if recorder is not None:  # record & replay: the upstream or the recordings, inside Access
        from mockserver.http.proxy import RecordingProxy

        app.add_middleware(RecordingProxy, recorder=recorder, engine=engine)
    app.add_middleware(Access, settings=settings, store=engine.store)
    app.state.lane = None
    # The optional layer in front: switched off, nothing behaves otherwise (and off while
    # recording: the lane would answer before the proxy decides).
    if settings.replay and recorder is None:
        lane = app.state.lane = Lane(endpoints)
        app.add_middleware(FastLane, lane=lane)
    app.add_middleware(ErrorBoundary)  # the lane's own failures reach it too
    app.add_middleware(PlainUpgrades)  # outermost: an upgrade it answers as HTTP is all HTTP
    app.state.engine = engine
    app.state.recorder = recorder  # a Responses socket's forwards its requests itself
    app.state.replays = replays
    app.state.endpoints = endpoints
    app.state.settings = settings
    return app
