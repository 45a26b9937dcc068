"""Azure OpenAI's paths (under ``/openai``), served by OpenAI's own endpoints.

The routes are the family table's Azure rows (``mockserver/families.py``): Chat Completions,
Responses and embeddings under a deployment (``/openai/deployments/{deployment}/…``, where the
deployment names the model) and under ``/openai/v1/…`` (where the body names it). Each is
answered by the endpoint that answers OpenAI's path, in Azure's shape; the rest of
``/openai/v1`` is OpenAI's API as it is (``http/app.py`` mounts it).

A dated path needs ``?api-version=``: without it, Azure's gateway answers a 404 ``Resource not
found`` before the API sees the request, and so does this module (any version is taken).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.errors import GatewayError
from mockserver.families import API_VERSION, AZURE_PREFIX, FAMILIES, Family
from mockserver.http.endpoint import Endpoints
from mockserver.http.routes.base import create_endpoint, read_json
from mockserver.http.routes.embeddings import embeddings_answer
from mockserver.http.routes.models import list_models, retrieve_model

__all__ = ["routes"]

Handler = Callable[[Request], Awaitable[Response]]


def not_found() -> GatewayError:
    """Azure's gateway's answer for a path it does not serve (or one without its version)."""
    return GatewayError("Resource not found", status=404)


def _versioned(row: Family, request: Request) -> None:
    """Refuse a request without the query parameter ``row``'s path requires."""
    if row.query is not None and row.query not in request.query_params:
        raise not_found()


def _turn(row: Family) -> Handler:
    @create_endpoint
    async def create(request: Request) -> Response:
        _versioned(row, request)
        endpoints: Endpoints = request.app.state.endpoints
        return await endpoints.of(row).route(request)

    create.__name__ = create.__qualname__ = f"create {row.path}"
    return create


def _embeddings(row: Family) -> Handler:
    @create_endpoint
    async def create(request: Request) -> Response:
        _versioned(row, request)
        body = await read_json(request)
        deployment = (row.parameters(request.url.path) or {}).get("deployment")
        if deployment is not None:  # the deployment names the model (the body's is ignored)
            body = request.state.json_body = {**body, "model": deployment}
        return embeddings_answer(request, body, provider=row.provider)

    create.__name__ = create.__qualname__ = f"create {row.path}"
    return create


@create_endpoint  # a refusal journaled here; the list, by its own endpoint
async def _list_models(request: Request) -> Response:
    if API_VERSION not in request.query_params:
        raise not_found()
    return await list_models(request)


def routes() -> list[BaseRoute]:
    """The Azure rows' routes (their paths after ``/openai``, where ``http/app.py`` mounts
    them), and the dated models list."""
    found: list[BaseRoute] = []
    for row in FAMILIES:
        if row.provider != "azure":
            continue
        path = row.path.removeprefix(AZURE_PREFIX)
        if row.turn:
            found.append(Route(path, _turn(row), methods=["POST"]))
        elif row.api == "embeddings":
            found.append(Route(path, _embeddings(row), methods=["POST"]))
    found.append(Route("/models", _list_models, methods=["GET"]))
    found.append(Route("/models/{model:path}", retrieve_model, methods=["GET"]))
    return found
