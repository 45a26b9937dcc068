"""Bedrock Runtime's Converse API: ``POST /model/{modelId}/converse`` and
``/converse-stream``, and what both of Bedrock's turn endpoints share (the model the path
names, the event-stream answer, a guardrail's verdict).

The endpoint takes the same turn as every family (``Engine.turn``), renders it as a
``ConverseResponse`` or its events (``render/converse.py``), and frames the stream as AWS's
event stream (``render/eventstream.py``). Its answers carry ``x-amzn-requestid``, its refusals
Bedrock's ``x-amzn-errortype`` and ``{"message"}`` (the ``bedrock`` shape,
``render/errors.py``). A request is signed with SigV4; the signature is not checked, and the
access key id names the namespace (``routes/base.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine.moderated import moderate_turn
from mockserver.engine.rendered import body_plan, scripted_error, stream_plan
from mockserver.engine.turn import Journaled, Turn
from mockserver.errors import NotFoundError
from mockserver.families import family_at
from mockserver.http.endpoint import Endpoints, Target, TurnEndpoint
from mockserver.http.lane.recipes import Key, Recipe, cut_template, framing_of, turn_recipe
from mockserver.http.responses import EventStreamResponse, PacedEventStreamResponse
from mockserver.http.routes.base import create_endpoint
from mockserver.http.routes.encoded import Encoded, encode_stream
from mockserver.plans import IMMEDIATE, UNPACED, BodyPlan, Framing, PacedStream, StreamPlan
from mockserver.prompt import Prompt
from mockserver.prompt.converse import prompt_from_converse
from mockserver.render import eventstream
from mockserver.render.converse import ConverseMeta, converse_body, converse_events
from mockserver.render.errors import BEDROCK
from mockserver.reply.model import Token
from mockserver.reply.tokens import tokenize
from mockserver.store import Namespace
from mockserver.values import Json, value_class
from mockserver.wire.converse import check_converse_body
from mockserver.wire.json_body import Body

__all__ = [
    "BLOCKED_MESSAGE",
    "EVENTSTREAM_FRAMING",
    "Converse",
    "ConverseResult",
    "guarded",
    "latency_ms",
    "model_and_stream",
    "routes",
    "stream_answer",
]

#: What a guardrail says in the model's place by default (its ``blockedOutputsMessaging``).
BLOCKED_MESSAGE: Final = "Sorry, the model cannot answer this question."


def _malformed(frame: bytes) -> bytes:
    """A message whose CRC does not match (botocore raises ``ChecksumMismatch``)."""
    return frame[:-1] + bytes([frame[-1] ^ 0xFF])


#: An event stream sends nothing while it waits, and breaks a message by its checksum.
EVENTSTREAM_FRAMING: Final = Framing(None, _malformed)


@value_class
class ConverseResult:
    """A rendered turn: ``body`` when not streamed, ``events`` (each message's event type and
    payload) when streamed."""

    turn: Turn
    body: Json | None
    events: list[tuple[str, Json]] | None
    headers: dict[str, str] = field(default_factory=dict)
    stream_plan: StreamPlan = UNPACED
    body_plan: BodyPlan = IMMEDIATE
    #: The exception message a scripted in-stream error sends (after the 200).
    stream_error: bytes = b""


def model_and_stream(path: str) -> tuple[str, bool]:
    """The model a Bedrock path names (an id, an inference profile, an ARN), and whether the
    operation streams."""
    family = family_at("POST", path)
    parameters = family.parameters(path) if family is not None else None
    if family is None or parameters is None:
        raise NotFoundError(f"Unable to find operation for POST {path}")
    return parameters["model"], family.streams


def latency_ms(turn: Turn) -> int:
    """What ``metrics.latencyMs`` reports: the time the answer would take, from its size."""
    return 120 + 9 * turn.reply.usage.completion_tokens


def guarded(turn: Turn, prompt: Prompt) -> tuple[Turn, bool]:
    """The turn as a request's guardrail (``guardrailConfig``) leaves it: a reply the scenario
    flags is blocked, and the guardrail's message said in its place."""
    if turn.moderation is None or "guardrailConfig" not in prompt.params:
        return turn, False
    policy = {"input": {"mode": "block"}, "output": {"mode": "block"}}
    moderation = moderate_turn(turn, {"moderation": {"policy": policy}})
    if moderation is None or moderation.blocked is None:
        return turn, False
    tokens = tuple(Token(text) for text in tokenize(BLOCKED_MESSAGE))
    usage = dataclasses.replace(moderation.reply.usage, completion_tokens=len(tokens))
    reply = dataclasses.replace(
        moderation.reply, text=BLOCKED_MESSAGE, tokens=tokens, usage=usage, finish_reason="stop"
    )
    return dataclasses.replace(turn, reply=reply), True


def stream_error(turn: Turn) -> bytes:
    """The exception message that ends the turn's stream if its fault says so."""
    member, payload = BEDROCK.stream_error(scripted_error(turn))
    return eventstream.exception_message(member, payload)


def stream_answer(
    frames: Sequence[bytes],
    *,
    plan: StreamPlan,
    error_frame: bytes,
    headers: Mapping[str, str],
    whole: bytes,
) -> Response:
    """An event stream's answer: one write, or paced and faulted as ``plan`` says."""
    if plan.unpaced:
        return EventStreamResponse(whole, headers=headers)
    stream = PacedStream(frames, plan, error_frames=[error_frame], framing=EVENTSTREAM_FRAMING)
    return PacedEventStreamResponse(stream, headers=headers)


def answer_converse(
    endpoint: TurnEndpoint[Any, Any], space: Namespace, prompt: Prompt, journal: Journaled
) -> ConverseResult:
    engine = endpoint.engine
    turn = engine.turn(space, prompt, journal=journal)
    turn, blocked = guarded(turn, prompt)
    meta = ConverseMeta(
        model=prompt.model,
        thinking=prompt.reasoning_effort is not None,
        guardrail=blocked,
        latency_ms=latency_ms(turn),
        chunk=turn.latency.chunk if turn.latency else "token",
    )
    headers = engine.request_headers(space.name, turn)
    if not prompt.stream:
        plan = body_plan(turn)
        return ConverseResult(turn, converse_body(turn.reply, meta), None, headers, body_plan=plan)
    events = converse_events(turn.reply, meta)
    plan_of = stream_plan(turn, frames=len(events))
    return ConverseResult(
        turn, None, events, headers, stream_plan=plan_of, stream_error=stream_error(turn)
    )


class BedrockTurn(TurnEndpoint[Prompt, ConverseResult]):
    """What Bedrock's turn endpoints share: a JSON body, or an AWS event stream of named
    messages (Converse's events, InvokeModel's chunk events), paced and faulted as planned."""

    def encode(self, result: ConverseResult) -> Encoded[ConverseResult]:
        if result.events is None:
            return Encoded(result, None, [], orjson.dumps(result.body))
        frames = [eventstream.event_message(name, payload) for name, payload in result.events]
        return encode_stream(
            result,
            frames,
            [],
            plan=result.stream_plan,
            error_frames=[result.stream_error],
            decode=eventstream.decode_stream,
        )

    @staticmethod
    def turn_of(result: ConverseResult) -> Turn:
        return result.turn

    def answer(self, encoded: Encoded[ConverseResult]) -> Response:
        result = encoded.result
        if encoded.frames is None:
            return encoded.body_response(plan=result.body_plan, headers=result.headers)
        return stream_answer(
            encoded.frames,
            plan=result.stream_plan,
            error_frame=result.stream_error,
            headers=result.headers,
            whole=encoded.whole,
        )

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[ConverseResult], response: Response
    ) -> Recipe | None:
        return None  # InvokeModel's stream carries the message's id inside each chunk's bytes


class Converse(BedrockTurn):
    """``POST /model/{modelId}/converse`` and ``/converse-stream``."""

    path = "/model/{model+}/converse"

    def recipe(
        self, key: Key, checked: Prompt, encoded: Encoded[ConverseResult], response: Response
    ) -> Recipe | None:
        """A Converse answer names no id and no time (its request id is a header, numbered
        by the lane): the same request is answered with the same bytes, CRCs and all."""
        result = encoded.result
        decision = result.turn.decision
        if decision is None:
            return None
        cut = cut_template(response, lambda: encoded.whole, "", 0, padded=False)
        if cut is None:
            return None
        return turn_recipe(
            key,
            result.turn,
            cut,
            api=checked.api,
            stream=checked.stream,
            decode_stream=eventstream.decode_stream,
            answer_id=_no_id,
            shape="bedrock",
            framing=framing_of(response),
        )

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Prompt:
        model, stream = model_and_stream(at.path)
        check_converse_body(body)
        return prompt_from_converse(body, headers=headers, model=model, stream=stream)

    def take(
        self,
        space: Namespace,
        checked: Prompt,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> ConverseResult:
        return answer_converse(self, space, checked, journal)


def _no_id(counter: int) -> str:
    return ""


@create_endpoint
async def _operation(request: Request) -> Response:
    """``POST /model/{modelId}/{operation}``: the operation's turn endpoint."""
    endpoints: Endpoints = request.app.state.endpoints
    try:
        endpoint = endpoints.at(request.url.path)
    except KeyError:
        raise NotFoundError(f"Unable to find operation for POST {request.url.path}") from None
    return await endpoint.route(request)


def routes() -> list[Route]:
    return [Route("/model/{model:path}/{operation}", _operation, methods=["POST"])]
