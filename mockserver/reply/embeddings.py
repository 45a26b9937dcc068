"""Embedding vectors: deterministic, unit length, and *meaningful*.

A vector is a seeded feature hash of its input. Each word (lower-cased letters and digits) adds
weight ``1 + log(count)`` at two positions chosen (with a sign) by a keyed hash of the word; each
character trigram of a word (``#pa``, ``par``, …, ``is#``) adds a quarter of that; a few very
common English words add a tenth. A small dense part, drawn from a hash of the whole input,
keeps vectors from being sparse. So:

- the same seed, model, size and input give the same vector, bit for bit;
- texts that share words (or most of a word: ``embedding`` / ``embeddings``) have a higher
  cosine similarity than texts that share none, which are near 0: a retriever over these
  vectors returns the document that mentions the query's words;
- another seed or model gives unrelated vectors.

Token-id inputs hash their ids as words. Vectors are made at the size asked for (``dimensions``,
else the model's): a shortened vector is not the prefix of the full one.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Final

from mockserver import ids
from mockserver.errors import APIError, InvalidRequestError
from mockserver.reply.tokens import count_tokens

__all__ = [
    "DEFAULT_DIMENSIONS",
    "MAX_REQUEST_TOKENS",
    "MAX_TOKENS",
    "MODEL_DIMENSIONS",
    "check_token_limits",
    "cosine",
    "embedding_vector",
    "input_text",
    "input_tokens",
    "model_dimensions",
    "supports_dimensions",
]

MODEL_DIMENSIONS: Final = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    # Gemini's (the Developer API's and Vertex AI's)
    "gemini-embedding-001": 3072,
    "gemini-embedding-exp-03-07": 3072,
    "text-embedding-004": 768,
    "text-embedding-005": 768,
    "embedding-001": 768,
    # Ollama's (under any tag: ``nomic-embed-text:latest``)
    "nomic-embed-text": 768,
    "all-minilm": 384,
    "mxbai-embed-large": 1024,
}
#: The size of any other model's vectors.
DEFAULT_DIMENSIONS: Final = 1536
#: Most tokens one input may have, and all of one request's inputs together.
MAX_TOKENS: Final = 8192
MAX_REQUEST_TOKENS: Final = 300_000
#: Largest ``dimensions`` a model we do not know may be asked for.
MAX_DIMENSIONS: Final = 3072

_WORD = re.compile(r"[^\W_]+")
_COMMON: Final = frozenset(
    "a an and are as at be but by for from has have he her his i in is it its of on or our "
    "she so that the their them they this to was we were what when where which who will with "
    "you your".split()
)
_TRIGRAM_WEIGHT = 0.25
_COMMON_WEIGHT = 0.1
#: Share of the (squared) length the features take; the rest is the dense part.
_FEATURE_SHARE = 0.81
_POSITIONS = 2

Input = str | tuple[int, ...]


def model_dimensions(model: str) -> int:
    """The size of ``model``'s vectors (an Ollama tag, ``:latest``, does not change it)."""
    if model in MODEL_DIMENSIONS:
        return MODEL_DIMENSIONS[model]
    return MODEL_DIMENSIONS.get(model.partition(":")[0], DEFAULT_DIMENSIONS)


def supports_dimensions(model: str) -> bool:
    """``dimensions`` shortens the -3 models (and any we do not know); ada-002 has none."""
    return model != "text-embedding-ada-002"


def input_text(value: Input) -> str:
    """What an input says, for matching and the journal (token ids: the ids, space-separated)."""
    return value if isinstance(value, str) else " ".join(map(str, value))


def input_tokens(value: Input) -> int:
    return count_tokens(value) if isinstance(value, str) else len(value)


def check_token_limits(model: str, counts: Sequence[int], dimensions: int | None) -> None:
    """The API's 400s for an input over 8192 tokens, a request over 300,000, and a
    ``dimensions`` the model cannot give."""
    for count in counts:
        if count > MAX_TOKENS:
            raise InvalidRequestError(
                f"This model's maximum context length is {MAX_TOKENS} tokens, however you "
                f"requested {count} tokens ({count} in your prompt; 0 for the completion). "
                "Please reduce your prompt; or completion length."
            )
    total = sum(counts)
    if total > MAX_REQUEST_TOKENS:
        raise APIError(
            f"Requested {total} tokens, max {MAX_REQUEST_TOKENS} tokens per request",
            status=400,
            type="max_tokens_per_request",
            code="max_tokens_per_request",
        )
    if dimensions is None:
        return
    if not supports_dimensions(model):
        raise InvalidRequestError("This model does not support specifying dimensions.")
    largest = MODEL_DIMENSIONS.get(model, MAX_DIMENSIONS)
    if dimensions > largest:
        raise InvalidRequestError(
            f"Invalid value for 'dimensions': {model} gives at most {largest} dimensions, "
            f"but {dimensions} were asked for.",
            param="dimensions",
            code="invalid_value",
        )


def _features(value: Input) -> dict[str, float]:
    """Each feature of the input with its weight."""
    weights: defaultdict[str, float] = defaultdict(float)
    if not isinstance(value, str):
        for token, count in Counter(value).items():
            weights[f"#{token}"] = 1 + math.log(count)
        return weights
    for word, count in Counter(_WORD.findall(value.lower())).items():
        weight = 1 + math.log(count)
        if word in _COMMON:
            weights[word] += _COMMON_WEIGHT * weight
            continue
        weights[word] += weight
        padded = f"#{word}#"
        for start in range(len(padded) - 2):
            weights["\x00" + padded[start : start + 3]] += _TRIGRAM_WEIGHT * weight
    return weights


def _unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


def embedding_vector(value: Input, *, seed: int, model: str, dimensions: int) -> list[float]:
    """The unit vector of ``value`` (see the module's docstring), as float32 values."""
    key = ids.stable_digest("embedding", seed, model, dimensions, size=32)
    sparse = [0.0] * dimensions
    for feature, weight in _features(value).items():
        digest = hashlib.blake2b(feature.encode(), key=key, digest_size=8 * _POSITIONS).digest()
        for (draw,) in struct.iter_unpack("<Q", digest):
            sign = 1.0 if draw & 1 else -1.0
            sparse[(draw >> 1) % dimensions] += sign * weight
    sparse = _unit(sparse)
    noise_bytes = hashlib.shake_256(key + input_text(value).encode()).digest(2 * dimensions)
    noise = _unit([n / 32768 for (n,) in struct.iter_unpack("<h", noise_bytes)])
    share = math.sqrt(_FEATURE_SHARE) if any(sparse) else 0.0
    rest = math.sqrt(1 - share * share)
    mixed = _unit([share * s + rest * n for s, n in zip(sparse, noise, strict=True)])
    return [float(f"{x:.9g}") for x in _float32(mixed)]


def _float32(vector: list[float]) -> tuple[float, ...]:
    """The values as float32 has them (what the API's vectors are, and base64 carries)."""
    return struct.unpack(f"<{len(vector)}f", struct.pack(f"<{len(vector)}f", *vector))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine similarity of two vectors (of unit vectors: their dot product)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0
