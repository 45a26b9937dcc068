"""Embedding vectors: deterministic, unit length, and similar for texts that share words."""

from __future__ import annotations

import math

import pytest

from mockserver.errors import APIError
from mockserver.reply.embeddings import (
    check_token_limits,
    cosine,
    embedding_vector,
    model_dimensions,
)

DOCUMENTS = [
    "Paris is the capital of France and sits on the Seine.",
    "The Great Barrier Reef lies off the coast of Queensland, Australia.",
    "Photosynthesis lets plants turn sunlight into chemical energy.",
    "Python is a programming language known for readable syntax.",
]


def vector(text: str, *, seed: int = 0, model: str = "text-embedding-3-small", size: int = 1536):
    return embedding_vector(text, seed=seed, model=model, dimensions=size)


def test_vectors_are_unit_length_and_deterministic() -> None:
    first = vector("hello world")
    assert first == vector("hello world")
    assert len(first) == 1536
    assert math.isclose(math.fsum(x * x for x in first), 1.0, rel_tol=1e-6)


def test_seed_and_model_change_the_vector() -> None:
    base = vector("hello world")
    assert cosine(base, vector("hello world", seed=1)) < 0.2
    assert cosine(base, vector("hello world", model="text-embedding-ada-002")) < 0.2


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is the capital of France?", 0),
        ("Which reef is near Australia?", 1),
        ("How do plants use sunlight?", 2),
        ("a readable programming language", 3),
    ],
)
def test_retrieval_returns_the_document_that_shares_the_querys_words(
    query: str, expected: int
) -> None:
    documents = [vector(d) for d in DOCUMENTS]
    scores = [cosine(vector(query), d) for d in documents]
    assert scores.index(max(scores)) == expected


def test_shared_words_score_higher_than_none() -> None:
    assert cosine(vector("embedding vectors"), vector("vectors of embeddings")) > 0.4
    assert abs(cosine(vector("embedding vectors"), vector("lunch at noon"))) < 0.15


def test_token_ids_embed_too_and_sizes_follow_the_request() -> None:
    tokens = vector((1212, 318, 257))
    assert tokens == vector((1212, 318, 257))
    assert cosine(tokens, vector((1212, 318))) > cosine(tokens, vector((9, 10)))
    assert len(vector("x", size=256)) == 256
    assert model_dimensions("text-embedding-3-large") == 3072
    assert model_dimensions("my-embedder") == 1536
    assert model_dimensions("nomic-embed-text:latest") == 768  # Ollama's, under any tag
    assert model_dimensions("all-minilm") == 384


def test_the_apis_limits() -> None:
    with pytest.raises(APIError, match="maximum context length is 8192 tokens"):
        check_token_limits("text-embedding-3-small", [8193], None)
    with pytest.raises(APIError) as info:
        check_token_limits("text-embedding-3-small", [8000] * 40, None)
    assert info.value.code == "max_tokens_per_request"
    with pytest.raises(APIError, match="does not support specifying dimensions"):
        check_token_limits("text-embedding-ada-002", [1], 256)
    with pytest.raises(APIError) as info:
        check_token_limits("text-embedding-3-small", [1], 2000)
    assert info.value.param == "dimensions"
    check_token_limits("text-embedding-3-large", [8192], 3072)
