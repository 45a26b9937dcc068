"""Embedding vectors → the API's list body (``encoding_format`` float or base64)."""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Literal

from mockserver.values import Json

__all__ = ["base64_vector", "embeddings_list"]


def base64_vector(vector: Sequence[float]) -> str:
    """The vector as the API sends it in base64: little-endian float32 values."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def embeddings_list(
    vectors: Sequence[Sequence[float]],
    *,
    model: str,
    prompt_tokens: int,
    encoding_format: Literal["float", "base64"],
) -> Json:
    """The ``list`` of ``embedding`` objects, in the real API's field order."""
    data = [
        {
            "object": "embedding",
            "index": index,
            "embedding": base64_vector(vector) if encoding_format == "base64" else list(vector),
        }
        for index, vector in enumerate(vectors)
    ]
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }
