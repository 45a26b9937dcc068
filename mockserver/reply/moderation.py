"""Seeded moderation verdicts (API-neutral; render/moderation.py gives them their shapes)."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass

from mockserver.scenario.terms import CATEGORIES

__all__ = ["CATEGORIES", "ModerationVerdict", "moderate"]


@dataclass(frozen=True, slots=True)
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
