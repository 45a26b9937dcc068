"""Moderated completions: score the input and the reply, and withhold what a policy blocks.

Shared by every API family; each renders the verdicts in its own shape. A provider whose
content filter judges every turn (Azure OpenAI's) moderates without the request asking, and
blocks what the scenario flags (:func:`azure_filtered`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from mockserver import ids
from mockserver.engine.turn import Turn, answered_by
from mockserver.errors import InvalidRequestError
from mockserver.render.azure import (
    CONTENT_FILTERED,
    AzureFilters,
    content_filter_results,
    filter_error_body,
    prompt_filter_results,
)
from mockserver.reply.model import Reply, Usage
from mockserver.reply.moderation import ModerationVerdict, moderate
from mockserver.values import value_class

__all__ = ["Moderation", "azure_filtered", "moderate_turn"]

Side = Literal["input", "output"]
DEFAULT_MODEL = "omni-moderation-latest"


@value_class
class Moderation:
    """The verdict on each side (``None``: moderation failed there) and the reply to send."""

    model: str
    input: ModerationVerdict | None
    output: ModerationVerdict | None
    reply: Reply
    blocked: Side | None = None


def _mode(config: Mapping[str, Any], side: Side) -> str:
    policy = config.get("policy") or {}
    return str((policy.get(side) or {}).get("mode") or "score")


def withheld(reply: Reply, *, generated: bool) -> Reply:
    """The reply with its content held back: ``finish_reason: content_filter``."""
    usage = reply.usage if generated else Usage(reply.usage.prompt_tokens, 0)
    return dataclasses.replace(
        reply,
        text=None,
        refusal=None,
        tokens=(),
        tool_calls=(),
        annotations=(),
        hosted=(),
        finish_reason="content_filter",
        usage=usage,
    )


def moderate_turn(turn: Turn, params: Mapping[str, Any]) -> Moderation | None:
    """``None`` unless the request asked for moderation (``moderation: {model, policy}``)."""
    config = params.get("moderation")
    if not isinstance(config, Mapping):
        return None
    spec = turn.moderation
    rng = ids.derive_rng(turn.seed, "moderation")
    failing = spec.error if spec else None
    verdicts = {
        side: None
        if failing == side
        else moderate(rng, flagged=getattr(spec, side) if spec else ())
        for side in ("input", "output")
    }
    model = str(config.get("model") or DEFAULT_MODEL)
    for side in ("input", "output"):
        verdict = verdicts[side]
        if verdict is not None and verdict.flagged and _mode(config, side) == "block":
            reply = withheld(turn.reply, generated=side == "output")
            return Moderation(model, verdicts["input"], verdicts["output"], reply, side)
    return Moderation(model, verdicts["input"], verdicts["output"], turn.reply)


#: A content filter that judges every turn and blocks what it flags, on both sides.
_FILTER: Mapping[str, Any] = {
    "moderation": {"policy": {"input": {"mode": "block"}, "output": {"mode": "block"}}}
}


def azure_filtered(turn: Turn) -> tuple[Turn, AzureFilters]:
    """The turn as Azure OpenAI's content filter leaves it (a completion it blocks withheld),
    and the filter's results; a prompt it blocks is refused: Azure's 400 ``content_filter``,
    raised as the turn's answer (its journal entry says so)."""
    moderation = moderate_turn(turn, _FILTER)
    assert moderation is not None, "a filter always moderates"
    if moderation.blocked == "input" and moderation.input is not None:
        error = InvalidRequestError(
            CONTENT_FILTERED,
            param="prompt",
            code="content_filter",
            extra=filter_error_body(moderation.input),
        )
        raise answered_by(turn, error, summary="content_filter: the prompt was filtered")
    filters = AzureFilters(
        prompt_filter_results(moderation.input), content_filter_results(moderation.output)
    )
    return dataclasses.replace(turn, reply=moderation.reply), filters
