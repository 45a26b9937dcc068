"""Seeded moderation verdicts (API-neutral; render/moderation.py gives them their shapes)."""

from __future__ import annotations

import random
from collections.abc import Collection

from mockserver.scenario.terms import CATEGORIES
from mockserver.values import value_class

__all__ = ["CATEGORIES", "IMAGE_CATEGORIES", "ModerationVerdict", "applied_input_types", "moderate"]


#: The categories the moderation model also judges images for (the others are text-only).
IMAGE_CATEGORIES = frozenset(
    {
        "self-harm",
        "self-harm/intent",
        "self-harm/instructions",
        "sexual",
        "violence",
        "violence/graphic",
    }
)


def applied_input_types(*, text: bool, image: bool) -> dict[str, list[str]]:
    """Per category, the kinds of input it was applied to (``category_applied_input_types``)."""
    return {
        category: [
            *(["text"] if text else []),
            *(["image"] if image and category in IMAGE_CATEGORIES else []),
        ]
        for category in CATEGORIES
    }


@value_class
class ModerationVerdict:
    categories: dict[str, bool]
    scores: dict[str, float]

    @property
    def flagged(self) -> bool:
        return any(self.categories.values())


def moderate(rng: random.Random, *, flagged: Collection[str] = ()) -> ModerationVerdict:
    """Low scores for every category, high ones for the ``flagged`` categories."""
    scores = {}
    for category in CATEGORIES:
        if category in flagged:
            scores[category] = round(rng.uniform(0.86, 0.99), 6)
        else:
            scores[category] = round(rng.uniform(0.0, 0.002) ** 1.5, 8)
    return ModerationVerdict(categories={c: c in flagged for c in CATEGORIES}, scores=scores)
