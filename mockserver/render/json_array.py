"""A JSON array streamed element by element (the Gemini API's stream without ``alt=sse``):
``[{…}`` then ``,{…}`` … then ``]``, each element indented as a body is written."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

__all__ = ["ARRAY_END", "array_frames", "decode_array"]

#: What closes a streamed JSON array.
ARRAY_END = b"\n]"


def array_frames(values: Iterable[Any], *, opened: bool = False) -> list[bytes]:
    """``values`` as the pieces of one streamed JSON array: the first opens it, each later one
    follows a comma; :data:`ARRAY_END` closes it. ``opened``: elements were sent before."""
    frames = []
    for value in values:
        head = b"\n,\r\n" if opened else b"["
        frames.append(head + orjson.dumps(value, option=orjson.OPT_INDENT_2))
        opened = True
    return frames


def decode_array(stream: bytes) -> list[Any]:
    """The elements of a streamed JSON array (closed or cut: what was sent in whole)."""
    text = stream if stream.rstrip().endswith(b"]") else stream.rstrip(b", \r\n") + b"]"
    try:
        values: list[Any] = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    return values
