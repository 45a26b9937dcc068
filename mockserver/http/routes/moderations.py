"""``/v1/moderations``, answered from the same scenario rules (deterministic scores)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.credentials import journaled_headers
from mockserver.engine.moderations import moderations
from mockserver.errors import InvalidRequestError
from mockserver.http.responses import json_response
from mockserver.http.routes.base import create_endpoint, engine_of, namespace_of, read_json
from mockserver.store import JournalEntry, Namespace
from mockserver.values import Json

__all__ = ["routes"]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        texts = [
            v["text"] for v in value if v.get("type") == "text" and isinstance(v.get("text"), str)
        ]
        if len(texts) == sum(1 for v in value if v.get("type") == "text"):
            return texts or [""]
    if value is None:
        raise InvalidRequestError(
            "Missing required parameter: 'input'.", param="input", code="missing_required_parameter"
        )
    raise InvalidRequestError(
        "Invalid type for 'input': expected a string, an array of strings, or an array of "
        "content parts.",
        param="input",
        code="invalid_type",
    )


@create_endpoint
async def create(request: Request) -> Response:
    engine = engine_of(request)
    namespace = namespace_of(request)
    body = await read_json(request)
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequestError(
            "Invalid type for 'model': expected a string, but got another type instead.",
            param="model",
            code="invalid_type",
        )
    headers = {k.lower(): v for k, v in request.headers.items()}
    given = body.get("input")
    image = isinstance(given, list) and any(
        isinstance(part, dict) and part.get("type") == "image_url" for part in given
    )
    texts = _texts(given)
    path = request.scope["path"]
    journaled = journaled_headers(headers.items())

    def moderate(space: Namespace) -> tuple[Json, dict[str, str]]:
        result, response_headers = moderations(
            engine, space, texts, image=image, model=model, headers=headers, body=body
        )
        flagged = sum(r["flagged"] for r in result["results"])
        space.record(
            JournalEntry(
                seq=0,
                method="POST",
                path=path,
                status=200,
                api="moderations",
                model=result["model"],
                request=body,
                response=result,
                summary=f"{flagged} of {len(result['results'])} flagged",
                request_headers=journaled,
                response_headers=response_headers,
            )
        )
        return result, response_headers

    result, response_headers = engine.store.transact(namespace, moderate)
    return json_response(result, headers=response_headers)


def routes() -> list[Route]:
    return [Route("/moderations", create, methods=["POST"])]
