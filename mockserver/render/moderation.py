"""Moderation verdicts in the seed's ``ChatCompletionModerationResults`` shapes."""

from __future__ import annotations

from typing import Any

from mockserver.reply.moderation import ModerationVerdict

__all__ = [
    "chat_moderation",
    "moderation_error",
    "moderation_result",
    "moderation_results",
    "responses_moderation",
]

Json = dict[str, Any]


def moderation_result(verdict: ModerationVerdict, *, model: str) -> Json:
    return {
        "type": "moderation_result",
        "model": model,
        "flagged": verdict.flagged,
        "categories": dict(verdict.categories),
        "category_scores": dict(verdict.scores),
        "category_applied_input_types": {c: ["text"] for c in verdict.categories},
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


def chat_moderation(
    verdicts: tuple[ModerationVerdict | None, ModerationVerdict | None], *, model: str
) -> Json:
    """The ``moderation`` object of a moderated chat completion (input, then output)."""
    out: Json = {}
    for side, verdict in zip(("input", "output"), verdicts, strict=True):
        out[side] = (
            moderation_error(side=side)
            if verdict is None
            else moderation_results(verdict, model=model)
        )
    return out


def responses_moderation(
    verdicts: tuple[ModerationVerdict | None, ModerationVerdict | None], *, model: str
) -> Json:
    """The Responses API's ``moderation``: one result (or error) per side, unwrapped."""
    out: Json = {}
    for side, verdict in zip(("input", "output"), verdicts, strict=True):
        out[side] = (
            moderation_error(side=side)
            if verdict is None
            else moderation_result(verdict, model=model)
        )
    return out
