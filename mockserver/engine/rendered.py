"""A turn rendered in its family's shape, with the plans that pace and break its answer: what a
family's turn endpoint hands from ``take`` to ``encode`` and ``answer``.

Every family plans an answer alike: a body by the turn's latency and fault, a stream by those,
its number of objects and the tokens it paces, and a stream a scripted fault ends sends that
error in the family's words. The family gives its meta, its objects and those words; nothing
here knows a field of theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Generic, TypeVar

from mockserver.engine.turn import Turn
from mockserver.errors import APIError
from mockserver.faults import error_for
from mockserver.plans import IMMEDIATE, UNPACED, BodyPlan, StreamPlan, plan_body, plan_stream
from mockserver.reply.model import Reply
from mockserver.values import Json, value_class

__all__ = [
    "Rendered",
    "as_raised",
    "body_plan",
    "scripted_error",
    "stream_plan",
    "streamed",
    "whole",
]

Meta = TypeVar("Meta")


@value_class
class Rendered(Generic[Meta]):
    """A rendered turn: ``body`` when not streamed, ``chunks`` (its stream's objects) when
    streamed; ``meta`` is what the family's renderer was given (ids, times)."""

    turn: Turn
    meta: Meta
    body: Json | None
    chunks: list[Json] | None
    headers: dict[str, str] = field(default_factory=dict)
    stream_plan: StreamPlan = UNPACED
    body_plan: BodyPlan = IMMEDIATE
    #: What a scripted in-stream error sends, in the family's words (after the 200).
    stream_error: Json | None = None

    @property
    def reply(self) -> Reply:
        return self.turn.reply


def whole(turn: Turn, meta: Meta, body: Json, headers: dict[str, str]) -> Rendered[Meta]:
    """``body``, answered whole as the turn's latency and fault plan it."""
    return Rendered(turn, meta, body, None, headers, body_plan=body_plan(turn))


def streamed(
    turn: Turn,
    meta: Meta,
    chunks: list[Json],
    headers: dict[str, str],
    *,
    words: Callable[[APIError], Json],
    tokens: int | None = None,
) -> Rendered[Meta]:
    """``chunks``, streamed as the turn's latency and fault plan it (:func:`stream_plan`);
    ``words`` writes the error a scripted fault ends the stream with."""
    plan = stream_plan(turn, frames=len(chunks), tokens=tokens)
    error = words(scripted_error(turn))
    return Rendered(turn, meta, None, chunks, headers, stream_plan=plan, stream_error=error)


def body_plan(turn: Turn) -> BodyPlan:
    """How the turn's latency and fault pace and break a body."""
    return plan_body(turn.latency, turn.fault, seed=turn.seed)


def stream_plan(turn: Turn, *, frames: int, tokens: int | None = None) -> StreamPlan:
    """How the turn's latency and fault pace and break a stream of ``frames`` objects that
    carry ``tokens`` (the reply's completion tokens unless given)."""
    if tokens is None:
        tokens = turn.reply.usage.completion_tokens
    return plan_stream(turn.latency, turn.fault, frames=frames, tokens=tokens, seed=turn.seed)


def scripted_error(turn: Turn) -> APIError:
    """The error the turn's fault scripts (the default one where it names none)."""
    return error_for(turn.fault.error if turn.fault else None)


def as_raised(error: APIError) -> Json:
    """An error's body in the words it is raised in (OpenAI's ``{"error": {...}}``)."""
    return error.body()
