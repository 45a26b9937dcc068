"""One Gemini ``generateContent`` request: turn → safety → render.

The safety filters act on a reply's ``moderation`` flags as the Gemini API's filters do, on
by default: a flagged prompt is the 200 with no candidates and ``promptFeedback.blockReason``,
a flagged answer a candidate that ends with ``SAFETY``; a request whose ``safetySettings`` turn
every filter off (``BLOCK_NONE``, ``OFF``) gets the ratings and the answer.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import field
from datetime import UTC, datetime
from typing import Any, Final

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.moderated import moderate_turn
from mockserver.engine.rendered import body_plan, scripted_error, stream_plan
from mockserver.engine.turn import Journaled, Turn
from mockserver.plans import IMMEDIATE, UNPACED, BodyPlan, StreamPlan
from mockserver.prompt import Prompt
from mockserver.render.errors import GOOGLE, error_answer
from mockserver.render.gemini import GeminiMeta, Safety, gemini_response
from mockserver.render.gemini_stream import gemini_chunks
from mockserver.reply.generate import compose
from mockserver.reply.model import Reply
from mockserver.store import Namespace
from mockserver.values import Json, value_class

__all__ = ["GeminiResult", "complete_gemini", "create_time", "gemini_headers", "response_id"]

#: The moderation categories' Gemini harm categories (by the category's first word).
_HARMS: Final = {
    "hate": "HARM_CATEGORY_HATE_SPEECH",
    "harassment": "HARM_CATEGORY_HARASSMENT",
    "sexual": "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "violence": "HARM_CATEGORY_DANGEROUS_CONTENT",
    "self-harm": "HARM_CATEGORY_DANGEROUS_CONTENT",
    "illicit": "HARM_CATEGORY_DANGEROUS_CONTENT",
}
_OFF: Final = frozenset({"BLOCK_NONE", "OFF"})


@value_class
class GeminiResult:
    """A rendered answer: ``body`` when not streamed, ``chunks`` when streamed."""

    turn: Turn
    meta: GeminiMeta
    replies: tuple[Reply, ...]
    body: Json | None
    chunks: list[Json] | None
    headers: dict[str, str] = field(default_factory=dict)
    stream_plan: StreamPlan = UNPACED
    body_plan: BodyPlan = IMMEDIATE
    #: What a scripted in-stream error sends (``{"error": {code, message, status}}``).
    stream_error: Json | None = None


def create_time(seconds: float) -> str:
    """Vertex AI's ``createTime``: RFC 3339 in UTC, to the microsecond."""
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def gemini_headers(processing_ms: int) -> dict[str, str]:
    """The headers the Gemini API puts on an answer (no request id, no rate-limit headers:
    the ``google`` shape's, ``render/errors.py``)."""
    return GOOGLE.answer_headers("", processing_ms=processing_ms, limits={})


def response_id(engine: Engine, namespace: str, counter: int) -> str:
    """The ``responseId`` of a namespace's ``counter``-th turn."""
    return ids.numbered_opaque_id(
        "", engine.settings.seed, namespace, "gemini", number=counter, length=23
    )


def _filters_off(params: Mapping[str, Any]) -> bool:
    settings = params.get("safetySettings") or []
    return bool(settings) and all(
        isinstance(s, Mapping) and s.get("threshold") in _OFF for s in settings
    )


def _harms(categories: Mapping[str, bool]) -> tuple[str, ...]:
    flagged = {_HARMS.get(name.split("/")[0], "") for name, on in categories.items() if on}
    return tuple(sorted(flagged - {""}))


def _safety(turn: Turn, prompt: Prompt) -> tuple[Turn, Safety | None]:
    """The turn as the safety filters leave it, and what they said (``None``: nothing rated)."""
    if turn.moderation is None:
        return turn, None
    mode = "score" if _filters_off(prompt.params) else "block"
    policy = {"input": {"mode": mode}, "output": {"mode": mode}}
    moderation = moderate_turn(turn, {"moderation": {"policy": policy}})
    if moderation is None:
        return turn, None
    flagged: set[str] = set()
    for verdict in (moderation.input, moderation.output):
        if verdict is not None:
            flagged.update(_harms(verdict.categories))
    turn = dataclasses.replace(turn, reply=moderation.reply)
    return turn, Safety(tuple(sorted(flagged)), moderation.blocked)


def _candidates(engine: Engine, prompt: Prompt, turn: Turn, count: int) -> tuple[Reply, ...]:
    """``count`` candidates: the turn's reply, then others the generator writes (a scripted
    reply is every candidate)."""
    replies = [turn.reply]
    for index in range(1, count):
        if turn.rule is not None:
            replies.append(turn.reply)
            continue
        rng: random.Random = ids.derive_rng(turn.seed, "candidate", index)
        content = engine.generator.content(prompt, rng=rng)
        reply = compose(prompt, content, rng=rng, prompt_tokens=turn.reply.usage.prompt_tokens)
        replies.append(reply)
    return tuple(replies)


def complete_gemini(
    engine: Engine,
    space: Namespace,
    prompt: Prompt,
    *,
    vertex: bool = False,
    journal: Journaled | None = None,
) -> GeminiResult:
    """The engine's turn for a ``generateContent`` request in ``space`` (held by the caller),
    rendered (streamed or not)."""
    namespace = space.name
    turn = engine.turn(space, prompt, journal=journal)
    turn, safety = _safety(turn, prompt)
    count = int((prompt.params.get("generationConfig") or {}).get("candidateCount") or 1)
    replies = _candidates(engine, prompt, turn, count)
    meta = GeminiMeta(
        response_id=response_id(engine, namespace, turn.counter),
        model_version=prompt.model,
        create_time=create_time(engine.clock.now()) if vertex else None,
        safety=safety,
        chunk=turn.latency.chunk if turn.latency else "token",
        image_tokens=sum(message.image_tokens for message in prompt.messages),
    )
    completion = sum(r.usage.completion_tokens for r in replies)
    headers = gemini_headers(120 + 9 * completion)
    if not prompt.stream:
        body = gemini_response(replies, meta)
        plan = body_plan(turn)
        return GeminiResult(turn, meta, replies, body, None, headers, body_plan=plan)
    chunks = list(gemini_chunks(replies, meta))
    plan_of = stream_plan(turn, frames=len(chunks), tokens=completion)
    error = error_answer(scripted_error(turn), "google").body
    return GeminiResult(
        turn, meta, replies, None, chunks, headers, stream_plan=plan_of, stream_error=error
    )
