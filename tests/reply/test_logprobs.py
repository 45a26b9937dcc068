"""Seeded logprobs: a token's logprob is the model's, whatever else a request asks for."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockserver import ids
from mockserver.render.chat import ChatMeta, chat_chunks
from mockserver.render.responses import LOGPROBS, ResponseMeta, echo_params
from mockserver.render.responses_stream import response_events
from mockserver.reply import logprobs
from mockserver.reply.logprobs import ScoredTokens, score_tokens
from mockserver.reply.model import Reply, Token, Usage
from mockserver.reply.tokens import tokenize

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


def test_a_stream_that_shows_no_logprobs_never_scores_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scoring is most of a short reply's cost: a stream draws it only to show it."""
    scored: list[tuple[str, ...]] = []

    def counting(texts: tuple[str, ...], *, rng: random.Random, top_k: int) -> tuple[Token, ...]:
        scored.append(texts)
        return score_tokens(texts, rng=rng, top_k=top_k)

    monkeypatch.setattr(logprobs, "score_tokens", counting)
    texts = tokenize("Hello there, friend. How are you?")

    def reply(shown: bool) -> Reply:
        tokens = ScoredTokens(texts, seed=3, top_k=2)
        return Reply(usage=Usage(5, len(texts)), text="".join(texts), tokens=tokens, logprobs=shown)

    chat_meta = ChatMeta("chatcmpl-1", 1, "gpt-4o-mini", "fp_1", "default")
    echo = echo_params({"model": "gpt-4o-mini"}, service_tier="default")
    plain_meta = ResponseMeta(id="resp_1", created_at=1, echo=echo, include=frozenset())
    shown_meta = ResponseMeta(id="resp_1", created_at=1, echo=echo, include=frozenset({LOGPROBS}))
    for chunk in ("token", "word", 3):
        meta = dataclasses.replace(chat_meta, chunk=chunk)
        deltas = [c["choices"][0]["delta"].get("content") for c in chat_chunks(reply(False), meta)]
        assert "".join(d for d in deltas if d) == "".join(texts)
    events = response_events(reply(False), plain_meta, completed_at=2)
    assert events[-1]["type"] == "response.completed"
    assert scored == []

    chunks = list(chat_chunks(reply(True), chat_meta))
    assert chunks[1]["choices"][0]["logprobs"]["content"][0]["token"] == texts[0]
    response_events(reply(True), shown_meta, completed_at=2)
    assert scored == [texts, texts]
