"""Moderation verdicts in the seed's ``ChatCompletionModerationResults`` shapes."""

from __future__ import annotations

from typing import Any

from mockserver.reply.moderation import ModerationVerdict

__all__ = ["moderation_result", "moderation_results"]

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
