"""Seeded log-probabilities for output tokens."""

from __future__ import annotations

import math
import random

from mockserver.reply.model import Token

__all__ = ["score_tokens"]

# Alternatives are drawn from frequent tokens, like a real top-k list would be.
_ALTERNATIVES: tuple[str, ...] = (
    " the", " a", " an", " and", " of", " to", " in", " is", " it", " that", " for", " on",
    " with", " as", " this", " be", " you", " I", " are", " or", " was", " by", " can", " at",
    " from", " not", " but", " have", " more", " will", " one", " all", " so", " if", " about",
    " which", " their", " there", " we", " they", " also", " just", " when", " some", " out",
    " what", " up", " very", " most", " first", " here",
    ".", ",", "!", "?", ":", "\n", " ", "-", "'s", "s",
)


def _alternatives(
    rng: random.Random, chosen: str, logprob: float, k: int
) -> list[tuple[str, float]]:
    pool = [t for t in rng.sample(_ALTERNATIVES, min(len(_ALTERNATIVES), k + 2)) if t != chosen]
    top = [(chosen, logprob)]
    floor = logprob
    for text in pool[: k - 1]:
        floor -= rng.uniform(0.05, 2.5)
        top.append((text, round(floor, 6)))
    return top


def score_tokens(texts: tuple[str, ...], *, rng: random.Random, top_k: int) -> tuple[Token, ...]:
    """A logprob per token (≤ 0) and ``top_k`` distinct alternatives sorted best first.

    The chosen token is the first alternative (it is the argmax in a greedy sample)."""
    out = []
    for text in texts:
        # Mostly confident tokens with an occasional uncertain one, like real samples.
        prob = 1.0 - rng.random() ** 0.25 * 0.9 if rng.random() < 0.2 else rng.uniform(0.85, 1.0)
        logprob = round(math.log(max(prob, 1e-9)), 6)
        top = tuple(_alternatives(rng, text, logprob, top_k)) if top_k else ()
        out.append(Token(text=text, logprob=min(logprob, 0.0), top=top))
    return tuple(out)
