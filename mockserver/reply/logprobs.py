"""Seeded log-probabilities for output tokens."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from typing import Any, overload

from mockserver import ids
from mockserver.reply.model import Token

__all__ = ["ScoredTokens", "score_tokens"]

# Alternatives are drawn from frequent tokens, like a real top-k list would be.
_ALTERNATIVES: tuple[str, ...] = (
    " the",
    " a",
    " an",
    " and",
    " of",
    " to",
    " in",
    " is",
    " it",
    " that",
    " for",
    " on",
    " with",
    " as",
    " this",
    " be",
    " you",
    " I",
    " are",
    " or",
    " was",
    " by",
    " can",
    " at",
    " from",
    " not",
    " but",
    " have",
    " more",
    " will",
    " one",
    " all",
    " so",
    " if",
    " about",
    " which",
    " their",
    " there",
    " we",
    " they",
    " also",
    " just",
    " when",
    " some",
    " out",
    " what",
    " up",
    " very",
    " most",
    " first",
    " here",
    ".",
    ",",
    "!",
    "?",
    ":",
    "\n",
    " ",
    "-",
    "'s",
    "s",
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

    The chosen token is the first alternative (it is the argmax in a greedy sample). The
    alternatives come from a stream of their own, so a token's logprob is the same whatever
    ``top_k`` a request asks for, as a model's would be."""
    others = random.Random(rng.getrandbits(64))
    out = []
    for text in texts:
        # Mostly confident tokens with an occasional uncertain one, like real samples.
        prob = 1.0 - rng.random() ** 0.25 * 0.9 if rng.random() < 0.2 else rng.uniform(0.85, 1.0)
        logprob = round(math.log(max(prob, 1e-9)), 6)
        top = tuple(_alternatives(others, text, logprob, top_k)) if top_k else ()
        out.append(Token(text=text, logprob=min(logprob, 0.0), top=top))
    return tuple(out)


class ScoredTokens(Sequence[Token]):
    """A reply's tokens, scored on first use: most replies never show their logprobs, and
    scoring is most of the cost of a short reply. The result is what :func:`score_tokens`
    gives for the same seed, whenever it is asked for."""

    __slots__ = ("_scored", "_seed", "_top_k", "texts")

    def __init__(self, texts: tuple[str, ...], *, seed: int, top_k: int) -> None:
        self.texts = texts
        self._seed = seed
        self._top_k = top_k
        self._scored: tuple[Token, ...] | None = None

    def recipe(self) -> dict[str, Any]:
        """What scores them (``ScoredTokens(**recipe)`` scores them alike)."""
        return {"texts": self.texts, "seed": self._seed, "top_k": self._top_k}

    def scored(self) -> tuple[Token, ...]:
        if self._scored is None:
            rng = ids.derive_rng(self._seed, "logprobs")
            self._scored = score_tokens(self.texts, rng=rng, top_k=self._top_k)
        return self._scored

    @overload
    def __getitem__(self, index: int) -> Token: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Token, ...]: ...
    def __getitem__(self, index: int | slice) -> Token | tuple[Token, ...]:
        return self.scored()[index]

    def __len__(self) -> int:
        return len(self.texts)

    def __iter__(self) -> Iterator[Token]:
        return iter(self.scored())

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, ScoredTokens):
            other = other.scored()
        return isinstance(other, Sequence) and self.scored() == tuple(other)

    def __hash__(self) -> int:
        return hash(self.scored())

    def __repr__(self) -> str:
        return f"ScoredTokens({self.texts!r}, seed={self._seed}, top_k={self._top_k})"
