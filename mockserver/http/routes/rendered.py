"""The turn endpoints whose result is the engine's :class:`~mockserver.engine.rendered.Rendered`
(:class:`RenderedTurn`), and among them those that answer in OpenAI's framing
(:class:`OpenAITurn`: Chat Completions and the legacy completions, at OpenAI's paths and
Azure's)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from starlette.responses import Response

from mockserver.engine.rendered import Rendered
from mockserver.engine.turn import Turn
from mockserver.http.endpoint import TurnEndpoint
from mockserver.http.routes.encoded import Encoded, encode_body, encode_stream
from mockserver.render import sse

__all__ = ["OpenAITurn", "RenderedTurn"]

Checked = TypeVar("Checked")
Meta = TypeVar("Meta")


class RenderedTurn(TurnEndpoint[Checked, Rendered[Meta]], Generic[Checked, Meta]):
    """A turn endpoint whose result is a :class:`Rendered`."""

    @staticmethod
    def turn_of(result: Rendered[Any]) -> Turn:
        return result.turn


class OpenAITurn(RenderedTurn[Checked, Meta]):
    """OpenAI's framing: a body indented as OpenAI's API writes one (compact, as Azure's
    gateway writes it, for Azure OpenAI), a stream of ``data:`` events that ``[DONE]`` ends,
    and the ``{"error": …}`` event a scripted in-stream error sends."""

    def encode(self, result: Rendered[Meta]) -> Encoded[Rendered[Meta]]:
        if result.chunks is not None:
            frames = [sse.frame(c) for c in result.chunks]
            errors = [sse.frame(result.stream_error)] if result.stream_plan.cut else []
            return encode_stream(
                result, frames, [sse.DONE], plan=result.stream_plan, error_frames=errors
            )
        return encode_body(result, result.body, pretty=self.family.provider == "openai")

    def answer(self, encoded: Encoded[Rendered[Meta]]) -> Response:
        result = encoded.result
        if encoded.frames is not None:
            return encoded.stream_response(
                plan=result.stream_plan,
                error_frames=[sse.frame(result.stream_error)],
                headers=result.headers,
            )
        return encoded.body_response(plan=result.body_plan, headers=result.headers)
