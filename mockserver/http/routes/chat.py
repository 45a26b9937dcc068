"""``/v1/chat/completions`` and the stored-completion endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine import Engine
from mockserver.engine.chat import ChatResult, chat_id, complete_chat, sentinel_answer
from mockserver.engine.core import summarize
from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.http.lane import fresh
from mockserver.http.lane.replay import (
    HANDOFF,
    FreshPath,
    Handoff,
    Key,
    Recipe,
    Replays,
    cut_template,
    handed_over,
    replay_key,
    replays_of,
)
from mockserver.http.routes.base import (
    api_endpoint,
    create_endpoint,
    engine_of,
    json_response,
    namespace_of,
    read_json,
)
from mockserver.http.routes.encoded import Encoded, encode_body, encode_stream
from mockserver.http.routes.query import page_query
from mockserver.prompt import Prompt
from mockserver.prompt.chat import prompt_from_chat
from mockserver.render import sse
from mockserver.store import Namespace, StoredChatCompletion, paginate
from mockserver.wire.plain import check_chat_body

__all__ = ["fresh_path", "routes"]


@create_endpoint
async def create(request: Request) -> Response:
    engine = engine_of(request)
    handoff: Handoff | None = request.scope.get(HANDOFF)
    if handoff is not None:  # the lane took the turn; its answer is the route's to send
        return _response(handed_over(request, handoff))
    namespace = namespace_of(request)
    body = await read_json(request)
    prompt = _prompt(body, request.headers)
    result = _turn(engine, prompt, namespace=namespace, path=request.scope["path"], body=body)
    response = _response(result)
    key = replay_key(request)
    if key is not None:
        _file_recipe(engine, replays_of(request), key, prompt, result, response)
    return response


def fresh_path(engine: Engine, replays: Replays) -> FreshPath:
    """This endpoint's turn for the lane (``routes/fresh.py``): :func:`create`'s own steps."""
    return fresh.fresh_path(
        engine,
        replays,
        check=_prompt,
        turn=lambda prompt, body, namespace, path, headers: _turn(
            engine, prompt, namespace=namespace, path=path, body=body
        ),
        respond=_response,
        file=lambda key, prompt, result, response: _file_recipe(
            engine, replays, key, prompt, result, response
        ),
    )


def _prompt(body: dict[str, Any], headers: Mapping[str, str]) -> Prompt:
    check_chat_body(body)
    return prompt_from_chat(body, headers=headers)


def _turn(
    engine: Engine, prompt: Prompt, *, namespace: str, path: str, body: dict[str, Any]
) -> Encoded[ChatResult]:
    """The turn, rendered, encoded and journaled."""
    result = complete_chat(engine, prompt, namespace=namespace)
    if result.chunks is not None:
        encoded = encode_stream(result, [sse.frame(c) for c in result.chunks], [sse.DONE])
    else:
        encoded = encode_body(result, result.body)
    engine.record_turn(
        namespace,
        path=path,
        prompt=prompt,
        turn=result.turn,
        request=body,
        response=encoded.journaled(),
    )
    return encoded


def _response(encoded: Encoded[ChatResult]) -> Response:
    result = encoded.result
    if encoded.frames is not None:
        return encoded.stream_response(
            plan=result.stream_plan,
            error_frames=[sse.frame(result.stream_error)],
            headers=result.headers,
        )
    return encoded.body_response(plan=result.body_plan, headers=result.headers)


def _file_recipe(
    engine: Engine,
    replays: Replays,
    key: Key,
    prompt: Prompt,
    encoded: Encoded[ChatResult],
    response: Response,
) -> None:
    """Let the replay lane answer this exact request next time, if it would be answered alike."""
    result = encoded.result
    decision = result.turn.decision
    if decision is None:
        return
    if "moderation" in prompt.params or prompt.params.get("store") is True:
        return
    meta = result.meta
    cut = cut_template(
        response, lambda: sentinel_answer(result), meta.id, meta.created, padded=meta.obfuscation
    )
    if cut is None:
        return
    namespace = decision.namespace
    replays.file(
        key,
        Recipe(
            decision=decision,
            template=cut,
            answer_id=lambda counter: chat_id(engine, namespace, counter),
            journaled=sse.decode_stream if prompt.stream else orjson.loads,
            stream=prompt.stream,
            path=key[0],
            api=prompt.api,
            request=prompt.params,
            summary=summarize(result.reply),
            miss=result.turn.miss,
        ),
    )


def _stored(space: Namespace, completion_id: str) -> StoredChatCompletion:
    stored = space.chat_completions.get(completion_id)
    if stored is None:
        raise NotFoundError(
            f"Chat completion with id '{completion_id}' not found.",
            param="completion_id",
        )
    return stored


@api_endpoint
async def list_completions(request: Request) -> Response:
    query = request.query_params
    model = query.get("model")
    wanted = {
        k[len("metadata[") : -1]: v
        for k, v in query.multi_items()
        if k.startswith("metadata[") and k.endswith("]")
    }
    page_of = page_query(request)
    with engine_of(request).store.namespace(namespace_of(request)) as space:
        items = [
            s
            for s in space.chat_completions.values()
            if (model is None or s.body["model"] == model)
            and all(s.metadata.get(k) == v for k, v in wanted.items())
        ]
        page = paginate(
            items,
            key=lambda s: s.body["id"],
            render=lambda s: s.body,
            query=page_of,
        )
    return json_response(page.body())


@api_endpoint
async def retrieve(request: Request) -> Response:
    with engine_of(request).store.namespace(namespace_of(request)) as space:
        return json_response(_stored(space, request.path_params["completion_id"]).body)


@api_endpoint
async def update(request: Request) -> Response:
    body = await read_json(request)
    metadata = body.get("metadata")
    if "metadata" not in body:
        raise InvalidRequestError(
            "Missing required parameter: 'metadata'.",
            param="metadata",
            code="missing_required_parameter",
        )
    if metadata is not None and not (
        isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise InvalidRequestError(
            "Invalid type for 'metadata': expected an object with string values.",
            param="metadata",
            code="invalid_type",
        )
    with engine_of(request).store.namespace(namespace_of(request)) as space:
        stored = _stored(space, request.path_params["completion_id"])
        stored.metadata = dict(metadata or {})
        stored.body["metadata"] = stored.metadata
        return json_response(stored.body)


@api_endpoint
async def delete(request: Request) -> Response:
    completion_id = request.path_params["completion_id"]
    with engine_of(request).store.namespace(namespace_of(request)) as space:
        _stored(space, completion_id)
        del space.chat_completions[completion_id]
    return json_response(
        {"object": "chat.completion.deleted", "id": completion_id, "deleted": True}
    )


@api_endpoint
async def messages(request: Request) -> Response:
    page_of = page_query(request)
    with engine_of(request).store.namespace(namespace_of(request)) as space:
        stored = _stored(space, request.path_params["completion_id"])
        page = paginate(
            stored.messages,
            key=lambda m: m["id"],
            render=dict,
            query=page_of,
        )
    return json_response(page.body())


def routes() -> list[Route]:
    return [
        Route("/chat/completions", create, methods=["POST"]),
        Route("/chat/completions", list_completions, methods=["GET"]),
        Route("/chat/completions/{completion_id}", retrieve, methods=["GET"]),
        Route("/chat/completions/{completion_id}", update, methods=["POST"]),
        Route("/chat/completions/{completion_id}", delete, methods=["DELETE"]),
        Route("/chat/completions/{completion_id}/messages", messages, methods=["GET"]),
    ]
