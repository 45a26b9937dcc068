"""``/v1/messages`` (Anthropic's Messages API) and its ``count_tokens``.

The endpoint takes the same turn as Chat Completions does (``Engine.turn``: match, reply,
commit), renders it as a ``message`` or its events (``render/messages.py``,
``render/messages_stream.py``), and frames the stream with an ``event:`` line per event. Its
answers carry Anthropic's headers (``request-id``, ``anthropic-ratelimit-*``: the family's
shape, ``render/errors.py``), its refusals Anthropic's error body.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine import Engine
from mockserver.engine.messages import message_id, message_meta
from mockserver.engine.rendered import Rendered, streamed, whole
from mockserver.engine.turn import Journaled
from mockserver.errors import InvalidRequestError
from mockserver.http.endpoint import Target, turn_route
from mockserver.http.lane import template
from mockserver.http.lane.recipes import Key, Recipe, cut_template, turn_recipe
from mockserver.http.routes.base import (
    ANTHROPIC_VERSION_HEADER,
    Handler,
    api_endpoint,
    read_json,
)
from mockserver.http.routes.encoded import Encoded, encode_stream
from mockserver.http.routes.rendered import RenderedTurn
from mockserver.prompt import Prompt
from mockserver.prompt.messages import prompt_from_messages
from mockserver.render import sse
from mockserver.render.errors import ANTHROPIC
from mockserver.render.messages import MessageMeta, message_body
from mockserver.render.messages_stream import frame_event, message_events
from mockserver.reply.generate import count_prompt_tokens
from mockserver.store import Namespace
from mockserver.values import Json
from mockserver.wire.json_body import Body
from mockserver.wire.plain import check_messages_body

__all__ = [
    "Messages",
    "MessagesResult",
    "answer_messages",
    "anthropic_endpoint",
    "message_id",
    "require_version",
    "routes",
]


#: A rendered turn: ``body`` when not streamed, ``chunks`` (its events) when streamed; a
#: scripted in-stream error sends an ``error`` event, after the 200.
MessagesResult = Rendered[MessageMeta]


def require_version(headers: Mapping[str, str]) -> None:
    """Refuse a request without ``anthropic-version`` as Anthropic's API does (every SDK sends
    it; a hand-written client that forgets it learns here, not in production)."""
    if ANTHROPIC_VERSION_HEADER not in headers:
        raise InvalidRequestError(f"{ANTHROPIC_VERSION_HEADER}: header is required")


def anthropic_endpoint(handler: Handler) -> Handler:
    """An Anthropic endpoint besides ``/v1/messages`` (``count_tokens``, the batches): an
    :func:`api_endpoint` that first refuses a request without ``anthropic-version``."""

    @functools.wraps(handler)
    async def versioned(request: Request) -> Response:
        require_version(request.headers)
        return await handler(request)

    return api_endpoint(versioned)


def answer_messages(
    engine: Engine, space: Namespace, prompt: Prompt, *, journal: Journaled | None = None
) -> MessagesResult:
    """The turn for ``prompt`` in ``space`` (held by the caller), rendered as a message or its
    events, with its plans."""
    namespace = space.name
    turn = engine.turn(space, prompt, journal=journal)
    meta = message_meta(engine, namespace, prompt, turn)
    headers = engine.request_headers(namespace, turn)
    if prompt.stream:
        events = message_events(turn.reply, meta)
        return streamed(turn, meta, events, headers, words=ANTHROPIC.stream_error)
    return whole(turn, meta, message_body(turn.reply, meta), headers)


class Messages(RenderedTurn[Prompt, MessageMeta]):
    """``POST /v1/messages``: a message, whole or streamed."""

    path = "/v1/messages"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Prompt:
        require_version(headers)
        check_messages_body(body)
        return prompt_from_messages(body, headers=headers)

    def take(
        self,
        space: Namespace,
        checked: Prompt,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> MessagesResult:
        return answer_messages(self.engine, space, checked, journal=journal)

    def encode(self, result: MessagesResult) -> Encoded[MessagesResult]:
        if result.chunks is None:
            return Encoded(result, None, [], orjson.dumps(result.body))
        frames = [frame_event(event) for event in result.chunks]
        errors = [_error_frame(result)]
        # message_stop: what a ``no_done`` fault leaves out
        return encode_stream(
            result, frames[:-1], frames[-1:], plan=result.stream_plan, error_frames=errors
        )

    def answer(self, encoded: Encoded[MessagesResult]) -> Response:
        result = encoded.result
        if encoded.frames is not None:
            return encoded.stream_response(
                plan=result.stream_plan,
                error_frames=[_error_frame(result)],
                headers=result.headers,
            )
        return encoded.body_response(plan=result.body_plan, headers=result.headers)

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[MessagesResult], response: Response
    ) -> Recipe | None:
        result = encoded.result
        decision = result.turn.decision
        if decision is None:
            return None
        cut = cut_template(
            response, lambda: _sentinel_answer(result), result.meta.id, 0, padded=False
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
            answer_id=lambda counter: message_id(engine, namespace, counter),
            shape="anthropic",
        )


def _error_frame(result: MessagesResult) -> bytes:
    return sse.event_frame("error", result.stream_error)


def _sentinel_answer(result: MessagesResult) -> bytes:
    """The answer's bytes with the template's sentinel for its id."""
    meta = dataclasses.replace(result.meta, id=template.ID)
    if result.chunks is not None:
        return b"".join(frame_event(event) for event in message_events(result.reply, meta))
    return orjson.dumps(message_body(result.reply, meta))


def compact_json(body: Json) -> Response:
    """A JSON answer as Anthropic's API writes one: compact."""
    return Response(orjson.dumps(body), media_type="application/json")


@anthropic_endpoint
async def count_tokens(request: Request) -> Response:
    """``POST /v1/messages/count_tokens`` (also ``?beta=true``): the ``input_tokens`` the same
    conversation reports when it is sent to ``/v1/messages``."""
    from mockserver.wire.messages import parse_count_tokens_request

    body = await read_json(request)
    parse_count_tokens_request(body)
    prompt = prompt_from_messages(body, headers=request.headers)
    return compact_json({"input_tokens": count_prompt_tokens(prompt)})


def routes() -> list[Route]:
    from mockserver.http.routes import messages_batches

    return [
        Route("/messages", turn_route(Messages.path), methods=["POST"]),
        Route("/messages/count_tokens", count_tokens, methods=["POST"]),
        *messages_batches.routes(),
    ]
