"""Moderation verdicts in the seed's ``ChatCompletionModerationResults`` shapes."""

from __future__ import annotations

from collections.abc import Callable

from mockserver.reply.moderation import ModerationVerdict, applied_input_types
from mockserver.values import Json

__all__ = [
    "chat_moderation",
    "moderation_error",
    "moderation_result",
    "moderation_results",
    "responses_moderation",
]

Verdicts = tuple[ModerationVerdict | None, ModerationVerdict | None]


def moderation_result(verdict: ModerationVerdict, *, model: str) -> Json:
    return {
        "type": "moderation_result",
        "model": model,
        "flagged": verdict.flagged,
        "categories": dict(verdict.categories),
        "category_scores": dict(verdict.scores),
        "category_applied_input_types": applied_input_types(text=True, image=False),
    }


def moderation_results(verdict: ModerationVerdict, *, model: str) -> Json:
    return {
        "type": "moderation_results",
        "model": model,
        "results": [moderation_result(verdict, model=model)],
    }


def moderation_error(*, side: str) -> Json:
    """A ``ChatCompletionModerationError``: moderation itself failed on that side."""
    return {
        "type": "error",
        "code": "moderation_unavailable",
        "message": f"Moderation of the {side} could not be completed. Please try again.",
    }


def chat_moderation(verdicts: Verdicts, *, model: str) -> Json:
    """Chat's ``moderation``: per side, a ``moderation_results`` list (or an error)."""
    return _per_side(verdicts, lambda v: moderation_results(v, model=model))


def responses_moderation(verdicts: Verdicts, *, model: str) -> Json:
    """The Responses API's ``moderation``: per side, one ``moderation_result`` (or an error)."""
    return _per_side(verdicts, lambda v: moderation_result(v, model=model))


def _per_side(verdicts: Verdicts, render: Callable[[ModerationVerdict], Json]) -> Json:
    return {
        side: moderation_error(side=side) if verdict is None else render(verdict)
        for side, verdict in zip(("input", "output"), verdicts, strict=True)
    }
