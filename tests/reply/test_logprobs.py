"""Seeded logprobs: a token's logprob is the model's, whatever else a request asks for."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from mockserver import ids
from mockserver.reply.logprobs import ScoredTokens, score_tokens

texts = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=30).map(tuple)


@given(texts, st.integers(min_value=0, max_value=2**64 - 1), st.integers(1, 20))
def test_a_tokens_logprob_does_not_depend_on_top_logprobs(
    tokens: tuple[str, ...], seed: int, top_k: int
) -> None:
    plain = score_tokens(tokens, rng=random.Random(seed), top_k=0)
    listed = score_tokens(tokens, rng=random.Random(seed), top_k=top_k)
    assert [t.logprob for t in plain] == [t.logprob for t in listed]
    for token in listed:
        assert token.top[0] == (token.text, token.logprob)  # the chosen token is the best
        assert len(token.top) <= top_k
        assert [lp for _, lp in token.top] == sorted((lp for _, lp in token.top), reverse=True)


@given(texts, st.integers(min_value=0, max_value=2**64 - 1), st.integers(0, 20))
def test_scored_on_first_use_is_the_same_as_scored_at_once(
    tokens: tuple[str, ...], seed: int, top_k: int
) -> None:
    lazy = ScoredTokens(tokens, seed=seed, top_k=top_k)
    at_once = score_tokens(tokens, rng=ids.derive_rng(seed, "logprobs"), top_k=top_k)
    assert tuple(lazy) == at_once
