"""``/v1/chat/completions`` and the stored-completion endpoints."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine.chat import ChatResult, chat_ids, complete_chat
from mockserver.engine.turn import Journaled
from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.http.endpoint import Target, turn_route
from mockserver.http.lane import template
from mockserver.http.lane.recipes import Key, Recipe, cut_template, turn_recipe
from mockserver.http.responses import json_response
from mockserver.http.routes.base import api_endpoint, engine_of, namespace_of, read_json
from mockserver.http.routes.encoded import Encoded
from mockserver.http.routes.query import page_query
from mockserver.http.routes.rendered import OpenAITurn
from mockserver.prompt import Prompt
from mockserver.prompt.chat import prompt_from_chat
from mockserver.render import sse
from mockserver.render.chat import ChatMeta, chat_chunks, chat_completion
from mockserver.store import Namespace, StoredChatCompletion, paginate
from mockserver.values import Json
from mockserver.wire.json_body import Body, encode_json_pretty
from mockserver.wire.plain import check_chat_body

__all__ = ["ChatCompletions", "routes"]


class ChatCompletions(OpenAITurn[Prompt, ChatMeta]):
    """``POST /v1/chat/completions``: a chat completion, whole or streamed (also Azure
    OpenAI's, at its paths)."""

    path = "/v1/chat/completions"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Prompt:
        check_chat_body(body)
        return prompt_from_chat(body, headers=headers, provider=self.family.provider)

    def take(
        self,
        space: Namespace,
        checked: Prompt,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> ChatResult:
        return complete_chat(self.engine, space, checked, journal=journal)

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[ChatResult], response: Response
    ) -> Recipe | None:
        result = encoded.result
        decision = result.turn.decision
        if decision is None:
            return None
        if "moderation" in checked.params or checked.params.get("store") is True:
            return None
        meta = result.meta
        cut = cut_template(
            response,
            lambda: _sentinel_answer(result),
            meta.id,
            meta.created,
            padded=meta.obfuscation,
        )
        if cut is None:
            return None
        engine, namespace = self.engine, decision.namespace
        return turn_recipe(
            key,
            result.turn,
            cut,
            api=checked.api,
            stream=checked.stream,
            decode_stream=sse.decode_stream,
            answer_id=chat_ids(engine, namespace),
        )


def _sentinel_answer(result: ChatResult) -> bytes:
    """The answer's bytes with the template sentinels for its id, time and padding."""
    meta = dataclasses.replace(
        result.meta, id=template.ID, created=template.CREATED, pad=template.pad_sentinel
    )
    if result.chunks is not None:
        return b"".join([*(sse.frame(c) for c in chat_chunks(result.reply, meta)), sse.DONE])
    return encode_json_pretty(chat_completion(result.reply, meta))


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
    with engine_of(request).store.view(namespace_of(request)) as space:
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
    with engine_of(request).store.view(namespace_of(request)) as space:
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
    completion_id = request.path_params["completion_id"]

    def update(space: Namespace) -> Json:
        stored = _stored(space, completion_id)
        stored.metadata = dict(metadata or {})
        stored.body["metadata"] = stored.metadata
        return stored.body

    return json_response(engine_of(request).store.transact(namespace_of(request), update))


@api_endpoint
async def delete(request: Request) -> Response:
    completion_id = request.path_params["completion_id"]

    def delete(space: Namespace) -> None:
        _stored(space, completion_id)
        del space.chat_completions[completion_id]

    engine_of(request).store.transact(namespace_of(request), delete)
    return json_response(
        {"object": "chat.completion.deleted", "id": completion_id, "deleted": True}
    )


@api_endpoint
async def messages(request: Request) -> Response:
    page_of = page_query(request)
    with engine_of(request).store.view(namespace_of(request)) as space:
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
        Route("/chat/completions", turn_route(ChatCompletions.path), methods=["POST"]),
        Route("/chat/completions", list_completions, methods=["GET"]),
        Route("/chat/completions/{completion_id}", retrieve, methods=["GET"]),
        Route("/chat/completions/{completion_id}", update, methods=["POST"]),
        Route("/chat/completions/{completion_id}", delete, methods=["DELETE"]),
        Route("/chat/completions/{completion_id}/messages", messages, methods=["GET"]),
    ]
