"""``/v1/embeddings`` (and Azure OpenAI's): parse → engine → answer."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.credentials import journaled_headers
from mockserver.engine.embeddings import create_embeddings
from mockserver.families import Provider
from mockserver.http.responses import JSONAnswer, PlannedJSONResponse
from mockserver.http.routes.base import create_endpoint, engine_of, namespace_of, read_json
from mockserver.wire.embeddings import parse_embeddings

__all__ = ["embeddings_answer", "routes"]


@create_endpoint
async def create(request: Request) -> Response:
    return embeddings_answer(request, await read_json(request))


def embeddings_answer(
    request: Request, body: dict[str, Any], *, provider: Provider = "openai"
) -> Response:
    """The answer to an embeddings request with this (read) ``body``, in ``provider``'s shape."""
    engine = engine_of(request)
    parsed = parse_embeddings(body)
    headers = {k.lower(): v for k, v in request.headers.items()}
    journaled = journaled_headers(headers.items())
    path = request.scope["path"]
    answer = engine.store.transact(
        namespace_of(request),
        lambda space: create_embeddings(
            engine,
            space,
            parsed,
            path=path,
            headers=headers,
            body=body,
            journaled_headers=journaled,
            provider=provider,
        ),
    )
    if answer.plan.plain:
        return JSONAnswer(answer.body, headers=answer.headers)
    return PlannedJSONResponse(answer.body, plan=answer.plan, headers=answer.headers)


def routes() -> list[Route]:
    return [Route("/embeddings", create, methods=["POST"])]
