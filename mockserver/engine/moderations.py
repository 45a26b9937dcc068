"""``POST /v1/moderations``: each input is matched against the scenario like a user message;
the matched reply's ``moderation.input`` categories are flagged, with seeded scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mockserver import ids
from mockserver.engine.core import Engine
from mockserver.engine.moderated import DEFAULT_MODEL
from mockserver.prompt import Message, Prompt
from mockserver.prompt.chat import fingerprint
from mockserver.reply.moderation import applied_input_types, moderate
from mockserver.store import Namespace
from mockserver.values import Json

__all__ = ["moderations"]


def moderations(
    engine: Engine,
    space: Namespace,
    texts: Sequence[str],
    *,
    model: str | None,
    headers: Mapping[str, str],
    body: Mapping[str, Any],
    image: bool = False,
) -> tuple[Json, dict[str, str]]:
    """One result per text (one for a list of content parts: ``image`` if it has an image),
    each a turn in ``space`` (held by the caller)."""
    namespace = space.name
    applied = applied_input_types(text=any(texts), image=image)
    results = []
    first_turn = None
    for index, text in enumerate(texts):
        prompt = Prompt(
            api="moderations",
            model=model or DEFAULT_MODEL,
            messages=(Message("user", text),),
            headers=headers,
            params=body,
            fingerprint=fingerprint("moderations", {"input": text, "index": index}),
        )
        turn = engine.turn(space, prompt)
        first_turn = first_turn or turn
        flagged = turn.moderation.input if turn.moderation else ()
        verdict = moderate(ids.derive_rng(turn.seed, "moderation"), flagged=flagged)
        results.append(
            {
                "flagged": verdict.flagged,
                "categories": verdict.categories,
                "category_scores": verdict.scores,
                "category_applied_input_types": {c: list(t) for c, t in applied.items()},
            }
        )
    assert first_turn is not None
    modr_id = ids.opaque_id("modr-", engine.settings.seed, namespace, first_turn.counter)
    body_out = {"id": modr_id, "model": model or DEFAULT_MODEL, "results": results}
    return body_out, engine.request_headers(namespace, first_turn)
