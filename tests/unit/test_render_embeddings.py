"""The embeddings list body, float or base64 (little-endian float32)."""

from __future__ import annotations

import base64
import struct

from mockserver.render.embeddings import base64_vector, embeddings_list


def test_base64_is_little_endian_float32() -> None:
    encoded = base64_vector([0.5, -0.25])
    assert struct.unpack("<2f", base64.b64decode(encoded)) == (0.5, -0.25)


def test_the_list_in_the_apis_field_order() -> None:
    body = embeddings_list([[0.5], [1.0]], model="m", prompt_tokens=4, encoding_format="float")
    assert list(body) == ["object", "data", "model", "usage"]
    assert body["data"][1] == {"object": "embedding", "index": 1, "embedding": [1.0]}
    assert body["usage"] == {"prompt_tokens": 4, "total_tokens": 4}
