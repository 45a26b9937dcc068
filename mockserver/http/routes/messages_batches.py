"""``/v1/messages/batches``: Anthropic's Message Batches (``engine/message_batches.py``).

Create answers every request in one change of the namespace; the others read a batch as it
stands on the namespace's clock. The list is Anthropic's: newest first, paged by
``after_id`` / ``before_id`` and ``limit``. The results file is JSON Lines, at the
``results_url`` the batch names once it has ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine import message_batches as batches
from mockserver.http.routes.base import engine_of, namespace_of, read_json
from mockserver.http.routes.messages import anthropic_endpoint, compact_json
from mockserver.http.routes.messages_models import limit_of, window_of
from mockserver.store import Namespace
from mockserver.wire.message_batches import parse_batch_create

__all__ = ["routes"]

T = TypeVar("T")
#: The results file's type (the SDK asks for it with ``Accept: application/binary``).
JSONL = "application/x-jsonl"


def _change(request: Request, work: Callable[[Namespace], T]) -> T:
    return engine_of(request).store.transact(namespace_of(request), work)


def _read(request: Request, work: Callable[[Namespace], T]) -> T:
    with engine_of(request).store.view(namespace_of(request)) as space:
        return work(space)


@anthropic_endpoint
async def create(request: Request) -> Response:
    engine = engine_of(request)
    batch = parse_batch_create(await read_json(request))
    root = str(request.base_url)
    return compact_json(
        _change(request, lambda space: batches.create_batch(engine, space, batch, root=root))
    )


@anthropic_endpoint
async def retrieve(request: Request) -> Response:
    engine, batch_id = engine_of(request), request.path_params["batch_id"]
    return compact_json(
        _read(request, lambda space: batches.retrieve_batch(engine, space, batch_id))
    )


@anthropic_endpoint
async def listing(request: Request) -> Response:
    engine = engine_of(request)
    limit = limit_of(request)
    every = _read(request, lambda space: batches.list_batches(engine, space))
    start, end = window_of([batch["id"] for batch in every], request, limit)
    data = every[start:end]
    more = start > 0 if request.query_params.get("before_id") is not None else end < len(every)
    return compact_json(
        {
            "data": data,
            "has_more": more,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
        }
    )


@anthropic_endpoint
async def cancel(request: Request) -> Response:
    engine, batch_id = engine_of(request), request.path_params["batch_id"]
    return compact_json(
        _change(request, lambda space: batches.cancel_batch(engine, space, batch_id))
    )


@anthropic_endpoint
async def delete(request: Request) -> Response:
    engine, batch_id = engine_of(request), request.path_params["batch_id"]
    return compact_json(
        _change(request, lambda space: batches.delete_batch(engine, space, batch_id))
    )


@anthropic_endpoint
async def results(request: Request) -> Response:
    engine, batch_id = engine_of(request), request.path_params["batch_id"]
    lines = _read(request, lambda space: batches.batch_results(engine, space, batch_id))
    return Response(lines, media_type=JSONL)


def routes() -> list[Route]:
    return [
        Route("/messages/batches", create, methods=["POST"]),
        Route("/messages/batches", listing, methods=["GET"]),
        Route("/messages/batches/{batch_id}", retrieve, methods=["GET"]),
        Route("/messages/batches/{batch_id}", delete, methods=["DELETE"]),
        Route("/messages/batches/{batch_id}/cancel", cancel, methods=["POST"]),
        Route("/messages/batches/{batch_id}/results", results, methods=["GET"]),
    ]
