"""``/v1/responses`` and the stored-response endpoints."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import replace
from functools import partial
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from mockserver.engine import responses as engine_responses
from mockserver.engine import responses_stored as stored_responses
from mockserver.engine.responses import ResponseResult, create_response, replay_store, response_ids
from mockserver.engine.responses_context import Remembered
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import InvalidRequestError
from mockserver.http.endpoint import Target, TurnEndpoint, turn_route
from mockserver.http.lane import template
from mockserver.http.lane.recipes import Key, Recipe, cut_template, turn_recipe
from mockserver.http.responses import SSEResponse, json_response
from mockserver.http.routes.base import api_endpoint, engine_of, namespace_of, read_json
from mockserver.http.routes.encoded import Encoded, encode_body, encode_stream
from mockserver.http.routes.query import page_query, query_flag, query_int, query_list
from mockserver.prompt.responses import input_items as items_of
from mockserver.render import sse
from mockserver.render.responses import final_status, item_id, response_body
from mockserver.render.responses_stream import response_events
from mockserver.store import Namespace
from mockserver.values import Json
from mockserver.wire.json_body import Body, encode_json_pretty
from mockserver.wire.plain import check_responses_body
from mockserver.wire.responses import (
    INCLUDABLE,
    parse_compact_request,
    parse_input_tokens_request,
)

__all__ = ["REMEMBERED", "Responses", "routes"]

#: The responses the connection a request came on keeps in memory (set by a WebSocket's
#: session around each of its requests: ``routes/responses_socket.py``; ``None``: plain HTTP,
#: which keeps nothing between requests).
REMEMBERED: ContextVar[Remembered | None] = ContextVar("mockserver_remembered", default=None)


def query_includes(request: Request) -> list[str]:
    """The ``include`` query values (``include`` or ``include[]``), each one the API knows."""
    values = query_list(request, "include")
    for value in values:
        if value not in INCLUDABLE:
            quoted = ", ".join(f"'{v}'" for v in INCLUDABLE)
            raise InvalidRequestError(
                f"Invalid value: '{value}'. Supported values are: {quoted}.",
                param="include",
                code="invalid_value",
            )
    return values


def _obfuscation(request: Request) -> bool:
    """``include_obfuscation`` of a streamed retrieve: on unless set to false."""
    given = request.query_params.get("include_obfuscation") is not None
    return not given or query_flag(request, "include_obfuscation")


def _stream(events: list[Json], headers: dict[str, str] | None = None) -> Response:
    return SSEResponse(b"".join(sse.event_frame(e["type"], e) for e in events), headers=headers)


class Responses(TurnEndpoint[Remembered | None, ResponseResult]):
    """``POST /v1/responses``: a response, whole, streamed or in the background (checked: the
    responses its connection remembers, taken when it is checked, in the request's context)."""

    path = "/v1/responses"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Remembered | None:
        check_responses_body(body)
        return REMEMBERED.get()

    def take(
        self,
        space: Namespace,
        checked: Remembered | None,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> ResponseResult:
        return create_response(
            self.engine,
            space,
            body,
            headers=headers,
            journal=journal,
            remembered=checked,
            provider=self.family.provider,
        )

    def encode(self, result: ResponseResult) -> Encoded[ResponseResult]:
        if result.events is None:
            return encode_body(result, result.body, pretty=self.family.provider == "openai")
        frames = [sse.event_frame(e["type"], e) for e in result.events]
        errors = [sse.event_frame(e["type"], e) for e in result.stream_error]
        # the terminal event: what a ``no_done`` fault leaves out
        return encode_stream(
            result, frames[:-1], frames[-1:], plan=result.stream_plan, error_frames=errors
        )

    @staticmethod
    def turn_of(result: ResponseResult) -> Turn:
        return result.turn

    def answer(self, encoded: Encoded[ResponseResult]) -> Response:
        result = encoded.result
        if encoded.frames is not None:
            return encoded.stream_response(
                plan=result.stream_plan,
                error_frames=[sse.event_frame(e["type"], e) for e in result.stream_error],
                headers=result.headers,
            )
        return encoded.body_response(plan=result.body_plan, headers=result.headers)

    def recipe(
        self,
        key: Key,
        checked: Remembered | None,
        encoded: Encoded[ResponseResult],
        response: Response,
    ) -> Recipe | None:
        """A response that continues nothing (no previous response, conversation or item
        reference) and is not a background one is answered alike again."""
        result = encoded.result
        decision = result.turn.decision
        if decision is None:
            return None
        body = result.prompt.params
        history = result.context.history
        if history or any(i.get("type") == "item_reference" for i in items_of(body)):
            return None
        if body.get("background") is True or "moderation" in body or "conversation" in body:
            return None
        meta = result.meta

        def derive_for(response_id: str) -> Callable[[str, int], str]:
            return partial(item_id, response_id)

        cut = cut_template(
            response,
            lambda: _sentinel_answer(result),
            meta.id,
            meta.created_at,
            padded=meta.obfuscation,
            derive=derive_for(meta.id),
        )
        if cut is None:
            return None
        engine, namespace = self.engine, decision.namespace
        return turn_recipe(
            key,
            result.turn,
            cut,
            api=result.prompt.api,
            stream=result.events is not None,
            decode_stream=sse.decode_stream,
            answer_id=response_ids(engine, namespace),
            derive=derive_for,
            commit=replay_store(engine, result) if body.get("store") is not False else None,
        )


def _sentinel_answer(result: ResponseResult) -> bytes:
    """The answer's bytes with the template sentinels for its id, times, item ids and padding
    (the creation and completion times share one: a replay is answered within one clock tick)."""
    meta = replace(
        result.meta,
        id=template.ID,
        created_at=template.CREATED,
        item_id=template.item_sentinel,
        pad=template.pad_sentinel,
    )
    reply = result.turn.reply
    if result.events is not None:
        events = response_events(reply, meta, completed_at=template.CREATED)
        return b"".join(sse.event_frame(e["type"], e) for e in events)
    body = response_body(meta, reply, status=final_status(reply), completed_at=template.CREATED)
    return encode_json_pretty(body)


@api_endpoint
async def retrieve(request: Request) -> Response:
    engine = engine_of(request)
    response_id = request.path_params["response_id"]
    namespace = namespace_of(request)
    if query_flag(request, "stream"):
        raw_after = request.query_params.get("starting_after")
        after = query_int(request, "starting_after", default=-1, low=-1, high=2**31)
        events = stored_responses.retrieve_events(
            engine,
            response_id,
            namespace=namespace,
            starting_after=None if raw_after is None else after,
            obfuscation=_obfuscation(request),
        )
        return _stream(events)
    body = stored_responses.retrieve_response(
        engine, response_id, namespace=namespace, include=query_includes(request)
    )
    return json_response(body)


@api_endpoint
async def delete(request: Request) -> Response:
    body = stored_responses.delete_response(
        engine_of(request), request.path_params["response_id"], namespace=namespace_of(request)
    )
    return json_response(body)


@api_endpoint
async def cancel(request: Request) -> Response:
    body = stored_responses.cancel_response(
        engine_of(request), request.path_params["response_id"], namespace=namespace_of(request)
    )
    return json_response(body)


@api_endpoint
async def input_items(request: Request) -> Response:
    query_includes(request)
    page = stored_responses.list_input_items(
        engine_of(request),
        request.path_params["response_id"],
        namespace=namespace_of(request),
        query=page_query(request, default_order="desc"),
    )
    return json_response(page.body())


@api_endpoint
async def compact(request: Request) -> Response:
    body = await read_json(request)
    body = _validated_fields(body, parse_compact_request(body))
    result = engine_responses.compact(engine_of(request), body, namespace=namespace_of(request))
    return json_response(result)


@api_endpoint
async def input_tokens(request: Request) -> Response:
    body = await read_json(request)
    body = _validated_fields(body, parse_input_tokens_request(body))
    result = engine_responses.count_input_tokens(
        engine_of(request), body, namespace=namespace_of(request)
    )
    return json_response(result)


def _validated_fields(body: dict[str, Any], params: BaseModel) -> dict[str, Any]:
    """The body's fields that ``params`` validated: an extra field these endpoints accept (and
    ignore) never reaches the prompt, which trusts what it reads."""
    known = type(params).model_fields
    return {key: value for key, value in body.items() if key in known}


def routes() -> list[BaseRoute]:
    from mockserver.http.routes.responses_socket import responses_socket

    return [
        Route("/responses", turn_route(Responses.path), methods=["POST"]),
        WebSocketRoute("/responses", responses_socket),
        Route("/responses/compact", compact, methods=["POST"]),
        Route("/responses/input_tokens", input_tokens, methods=["POST"]),
        Route("/responses/{response_id}", retrieve, methods=["GET"]),
        Route("/responses/{response_id}", delete, methods=["DELETE"]),
        Route("/responses/{response_id}/cancel", cancel, methods=["POST"]),
        Route("/responses/{response_id}/input_items", input_items, methods=["GET"]),
    ]
