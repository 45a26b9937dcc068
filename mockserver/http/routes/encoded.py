"""A create endpoint's answer, encoded once: the bytes it sends are the bytes it journals.

A turn's rendered answer (a body, or a stream's payloads) is encoded as soon as the turn is
taken. The journal keeps those bytes, parsed only when it is read: a stream's payloads are
hundreds of objects per request, and a journal of a thousand entries kept them all alive, at a
cost paid on every request (their making, their freeing, the garbage collector's walks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

import orjson
from starlette.responses import Response

from mockserver.engine.journaled import kept
from mockserver.http.responses import (
    JSONAnswer,
    PlannedJSONResponse,
    SSEResponse,
    paced_stream_response,
)
from mockserver.plans import UNPACED, BodyPlan, StreamPlan
from mockserver.render import sse
from mockserver.render.json_array import decode_array
from mockserver.store import Unparsed
from mockserver.wire.json_body import encode_json, encode_json_pretty

__all__ = ["Encoded", "encode_body", "encode_stream"]

Result = TypeVar("Result")


class Encoded(NamedTuple, Generic[Result]):
    """A turn's result, with its answer's bytes."""

    result: Result
    #: A stream's frames, up to its tail; ``None`` for a body.
    frames: list[bytes] | None
    #: The frames that close a stream (what a ``no_done`` fault leaves out).
    tail: list[bytes]
    #: The whole answer: the body, or every frame joined.
    whole: bytes
    #: What a stream's fault does to it, and the frames a scripted error sends instead of the
    #: rest (what the journal keeps is what is sent).
    plan: StreamPlan = UNPACED
    error_frames: tuple[bytes, ...] = ()
    #: How the journal reads the stream's bytes (``None``: as :func:`decode_sent` does).
    decode: Callable[[bytes], list[Any]] | None = None

    def journaled(self) -> Unparsed:
        """The answer as the journal keeps it (its JSON, parsed when read): what is sent, so a
        stream a scripted error ends shows its ``error`` event where the rest would have been,
        and one without its terminator shows none."""
        if self.frames is None:
            return Unparsed(kept(self.whole), orjson.loads)
        kind, after = self.plan.cut or ("", 0)
        sent = self.whole
        if kind == "error":
            sent = b"".join([*self.frames[:after], *self.error_frames])
        elif kind == "no_done":
            sent = b"".join(self.frames)
        return Unparsed(sent, self.decode or decode_sent)

    def body_response(self, *, plan: BodyPlan, headers: Mapping[str, str]) -> Response:
        if plan.plain:
            return JSONAnswer(self.whole, headers=headers)
        return PlannedJSONResponse(self.whole, plan=plan, headers=headers)

    def stream_response(
        self, *, plan: StreamPlan, error_frames: Sequence[bytes], headers: Mapping[str, str]
    ) -> Response:
        if plan.unpaced:  # one write of what is already joined
            return SSEResponse(self.whole, headers=headers)
        frames = self.frames or []
        return paced_stream_response(
            frames, plan=plan, tail=self.tail, error_frames=error_frames, headers=headers
        )


def decode_sent(stream: bytes) -> list[Any]:
    """The payloads of a stream as it was sent, in either framing: a streamed JSON array's
    elements, or its events'."""
    return decode_array(stream) if stream.startswith(b"[") else sse.decode_stream(stream)


def encode_body(result: Result, body: Any, *, pretty: bool = True) -> Encoded[Result]:
    """A non-streamed answer: indented JSON, as OpenAI's API writes bodies (``pretty``), else
    compact, as Azure OpenAI's gateway does."""
    encoded = encode_json_pretty(body) if pretty else encode_json(body)
    return Encoded(result, None, [], encoded)


def encode_stream(
    result: Result,
    frames: list[bytes],
    tail: list[bytes],
    *,
    plan: StreamPlan = UNPACED,
    error_frames: Sequence[bytes] = (),
    decode: Callable[[bytes], list[Any]] | None = None,
) -> Encoded[Result]:
    joined = b"".join([*frames, *tail])
    return Encoded(result, frames, tail, joined, plan, tuple(error_frames), decode)
