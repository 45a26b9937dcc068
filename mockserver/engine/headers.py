"""The headers of an engine's answers, in the shape of the family that answers
(``render/errors.py``): request ids numbered from the seed, namespace and turn, and the
rate-limit headers the turn's budgets give."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mockserver.engine.turn import Turn
from mockserver.errors import APIError, RecordedAnswer
from mockserver.render.errors import SHAPES, Standing
from mockserver.settings import Settings

__all__ = ["AnswerHeaders"]


class AnswerHeaders:
    """The headers of the answers (a part of :class:`~mockserver.engine.core.Engine`)."""

    settings: Settings

    def request_headers(self, namespace: str, turn: Turn) -> dict[str, str]:
        """The headers the real API puts on every answer."""
        return self.answer_headers(
            namespace,
            turn.counter,
            turn.reply.usage.completion_tokens,
            turn.headers,
            shape=turn.shape,
        )

    def answer_headers(
        self,
        namespace: str,
        counter: int,
        completion_tokens: int,
        budget: Mapping[str, str],
        *,
        shape: str = "openai",
    ) -> dict[str, str]:
        """The headers of the answer to a namespace's ``counter``-th turn (``budget``: its
        rate-limit headers)."""
        writer = SHAPES[shape]
        request_id = writer.request_id(self.settings.seed, namespace, counter, journal=False)
        return writer.answer_headers(
            request_id, processing_ms=120 + 9 * completion_tokens, limits=budget
        )

    def replay_headers(
        self,
        namespace: str,
        counter: int,
        completion_tokens: int,
        standing: Standing,
        *,
        shape: str = "openai",
    ) -> dict[str, str]:
        """:meth:`answer_headers`, its rate-limit headers those of ``standing`` (where the
        namespace's budgets stand after the turn)."""
        writer = SHAPES[shape]
        request_id = writer.request_id(self.settings.seed, namespace, counter, journal=False)
        return writer.answer_headers_at(
            request_id, processing_ms=120 + 9 * completion_tokens, standing=standing
        )

    def replay_headers_for(
        self, namespace: str, completion_tokens: int, *, shape: str = "openai"
    ) -> Callable[[int, Standing], dict[str, str]]:
        """:meth:`replay_headers` of one recipe's replays, by counter and standing: the shape,
        the request ids' numbering and the processing time read once."""
        writer = SHAPES[shape]
        request_id = writer.request_ids(self.settings.seed, namespace)
        processing_ms = 120 + 9 * completion_tokens
        at = writer.answer_headers_at

        def headers(counter: int, standing: Standing) -> dict[str, str]:
            return at(request_id(counter), processing_ms=processing_ms, standing=standing)

        return headers

    def service_headers(self, namespace: str, seq: int, *, shape: str = "openai") -> dict[str, str]:
        """The headers of an answer that is not a model's turn (a retrieve, list, delete…);
        its request id is numbered after its journal entry."""
        writer = SHAPES[shape]
        request_id = writer.request_id(self.settings.seed, namespace, seq, journal=True)
        return writer.answer_headers(request_id, processing_ms=12, limits={})

    def error_headers(
        self, namespace: str, seq: int, error: APIError, *, shape: str = "openai"
    ) -> dict[str, str]:
        """The headers of the answer that refuses a request with ``error`` in the family of
        ``shape`` (``render/errors.py``), its request id numbered after the request's journal
        entry ``seq``; a recorded answer's, as recorded."""
        if isinstance(error, RecordedAnswer):
            return {k.lower(): v for k, v in error.recorded_headers.items()}
        writer = SHAPES[shape]
        request_id = writer.request_id(self.settings.seed, namespace, seq, journal=True)
        return writer.error(error, request_id=request_id).headers
