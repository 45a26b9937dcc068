"""``/v1/conversations`` and its items: what the Responses API's ``conversation`` reads."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine import conversations as engine_conversations
from mockserver.http.responses import json_response
from mockserver.http.routes.base import api_endpoint, engine_of, namespace_of, read_json
from mockserver.http.routes.query import page_query
from mockserver.http.routes.responses import query_includes
from mockserver.wire.responses_conversations import (
    parse_conversation_create,
    parse_conversation_update,
    parse_item_create,
)

__all__ = ["routes"]


async def _optional_json(request: Request) -> dict[str, object]:
    """The SDK may send ``POST /conversations`` with no body at all."""
    if request.headers.get("content-length") in (None, "0") and "chunked" not in (
        request.headers.get("transfer-encoding", "")
    ):
        return {}
    return await read_json(request)


@api_endpoint
async def create(request: Request) -> Response:
    body = await _optional_json(request)
    parse_conversation_create(body)
    result = engine_conversations.create_conversation(
        engine_of(request), body, namespace=namespace_of(request)
    )
    return json_response(result)


@api_endpoint
async def retrieve(request: Request) -> Response:
    result = engine_conversations.retrieve_conversation(
        engine_of(request),
        request.path_params["conversation_id"],
        namespace=namespace_of(request),
    )
    return json_response(result)


@api_endpoint
async def update(request: Request) -> Response:
    params = parse_conversation_update(await read_json(request))
    result = engine_conversations.update_conversation(
        engine_of(request),
        request.path_params["conversation_id"],
        params.metadata,
        namespace=namespace_of(request),
    )
    return json_response(result)


@api_endpoint
async def delete(request: Request) -> Response:
    result = engine_conversations.delete_conversation(
        engine_of(request),
        request.path_params["conversation_id"],
        namespace=namespace_of(request),
    )
    return json_response(result)


@api_endpoint
async def list_items(request: Request) -> Response:
    query_includes(request)
    page = engine_conversations.list_items(
        engine_of(request),
        request.path_params["conversation_id"],
        namespace=namespace_of(request),
        query=page_query(request, default_order="desc"),
    )
    return json_response(page.body())


@api_endpoint
async def add_items(request: Request) -> Response:
    query_includes(request)
    body = await read_json(request)
    parse_item_create(body)
    result = engine_conversations.add_items(
        engine_of(request),
        request.path_params["conversation_id"],
        body["items"],
        namespace=namespace_of(request),
    )
    return json_response(result)


@api_endpoint
async def retrieve_item(request: Request) -> Response:
    query_includes(request)
    result = engine_conversations.retrieve_item(
        engine_of(request),
        request.path_params["conversation_id"],
        request.path_params["item_id"],
        namespace=namespace_of(request),
    )
    return json_response(result)


@api_endpoint
async def delete_item(request: Request) -> Response:
    result = engine_conversations.delete_item(
        engine_of(request),
        request.path_params["conversation_id"],
        request.path_params["item_id"],
        namespace=namespace_of(request),
    )
    return json_response(result)


def routes() -> list[Route]:
    one = "/conversations/{conversation_id}"
    item = one + "/items/{item_id}"
    return [
        Route("/conversations", create, methods=["POST"]),
        Route(one, retrieve, methods=["GET"]),
        Route(one, update, methods=["POST"]),
        Route(one, delete, methods=["DELETE"]),
        Route(one + "/items", list_items, methods=["GET"]),
        Route(one + "/items", add_items, methods=["POST"]),
        Route(item, retrieve_item, methods=["GET"]),
        Route(item, delete_item, methods=["DELETE"]),
    ]
