"""Bedrock Runtime's InvokeModel: ``POST /model/{modelId}/invoke`` and
``/invoke-with-response-stream``, for an Anthropic-on-Bedrock body (``anthropic_version:
bedrock-2023-05-31``).

The body is Anthropic's Messages body less its ``model`` (the path names it); the answer is
Anthropic's own, rendered by the Anthropic renderer (``render/messages.py``,
``render/messages_stream.py``): a ``message`` as the whole body, or, streamed, each of
Anthropic's events (snake_case, as its SDK reads them) base64-encoded in the ``bytes`` of a
``chunk`` event of AWS's event stream. Bedrock adds its invocation metrics to the last one
and its counts to the headers of a whole answer; it sends no ``ping``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Final

import orjson

from mockserver import ids
from mockserver.engine.rendered import body_plan, stream_plan
from mockserver.engine.turn import Journaled, Turn
from mockserver.http.endpoint import Target, TurnEndpoint
from mockserver.http.routes.converse import (
    BedrockTurn,
    ConverseResult,
    guarded,
    latency_ms,
    model_and_stream,
    stream_error,
)
from mockserver.prompt import Prompt
from mockserver.prompt.converse import prompt_from_invoke
from mockserver.render.messages import MessageMeta, message_body
from mockserver.render.messages_stream import PING, message_events
from mockserver.store import Namespace
from mockserver.values import Json
from mockserver.wire.converse import check_invoke_body
from mockserver.wire.json_body import Body
from mockserver.wire.plain import check_messages_body

__all__ = ["Invoke", "anthropic_model"]

#: A Bedrock id of an Anthropic model: an inference profile's region, the provider, the
#: model's own name, its version (``us.anthropic.claude-sonnet-4-20250514-v1:0``).
_ANTHROPIC_ID: Final = re.compile(r"(?:[a-z]+\.)?anthropic\.(?P<name>.+?)(?:-v\d+(?::\d+)?)?")
_JSON: Final = "application/json"
_PADDING: Final = "abcdefghijklmnopq"


def anthropic_model(model: str) -> str:
    """The name Anthropic's answer gives the model a Bedrock id (or ARN) names."""
    name = model.rsplit("/", 1)[-1]
    found = _ANTHROPIC_ID.fullmatch(name)
    return found.group("name") if found else name


def _metrics(turn: Turn, latency: int) -> Json:
    usage = turn.reply.usage
    return {
        "inputTokenCount": usage.prompt_tokens,
        "outputTokenCount": usage.completion_tokens,
        "invocationLatency": latency,
        "firstByteLatency": min(latency, 120),
    }


def _chunks(turn: Turn, meta: MessageMeta, latency: int) -> list[Json]:
    """Anthropic's events (no ping), the last with Bedrock's invocation metrics, each the
    base64 ``bytes`` of a chunk (with Bedrock's ``p`` padding)."""
    events = [event for event in message_events(turn.reply, meta) if event is not PING]
    events[-1] = {**events[-1], "amazon-bedrock-invocationMetrics": _metrics(turn, latency)}
    return [
        {"bytes": base64.b64encode(orjson.dumps(event)).decode(), "p": _PADDING[: n % 17]}
        for n, event in enumerate(events, start=1)
    ]


def _answer(
    endpoint: TurnEndpoint[Prompt, ConverseResult],
    space: Namespace,
    prompt: Prompt,
    journal: Journaled,
) -> ConverseResult:
    engine = endpoint.engine
    turn = engine.turn(space, prompt, journal=journal)
    turn, _ = guarded(turn, prompt)
    meta = MessageMeta(
        id=ids.numbered_opaque_id(
            "msg_bdrk_01", engine.settings.seed, space.name, number=turn.counter, length=22
        ),
        model=anthropic_model(prompt.model),
        thinking=prompt.reasoning_effort is not None,
        chunk=turn.latency.chunk if turn.latency else "token",
    )
    latency = latency_ms(turn)
    headers = engine.request_headers(space.name, turn)
    if prompt.stream:
        chunks = _chunks(turn, meta, latency)
        plan = stream_plan(turn, frames=len(chunks))
        headers["x-amzn-bedrock-content-type"] = _JSON
        events = [("chunk", chunk) for chunk in chunks]
        return ConverseResult(
            turn, None, events, headers, stream_plan=plan, stream_error=stream_error(turn)
        )
    body = message_body(turn.reply, meta)
    usage = turn.reply.usage
    headers.update(
        {
            "x-amzn-bedrock-invocation-latency": str(latency),
            "x-amzn-bedrock-output-token-count": str(usage.completion_tokens),
            "x-amzn-bedrock-input-token-count": str(usage.prompt_tokens),
        }
    )
    return ConverseResult(turn, body, None, headers, body_plan=body_plan(turn))


class Invoke(BedrockTurn):
    """``POST /model/{modelId}/invoke`` and ``/invoke-with-response-stream``."""

    path = "/model/{model+}/invoke"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Prompt:
        model, stream = model_and_stream(at.path)
        check_invoke_body(body)
        as_messages = {k: v for k, v in body.items() if k != "anthropic_version"}
        check_messages_body({**as_messages, "model": model})
        return prompt_from_invoke(body, headers=headers, model=model, stream=stream)

    def take(
        self,
        space: Namespace,
        checked: Prompt,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> ConverseResult:
        return _answer(self, space, checked, journal)
