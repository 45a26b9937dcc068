"""What an image in a prompt costs in tokens, as OpenAI documents it for its vision models.

``detail: low``: a fixed 85 tokens. ``high`` and ``auto`` (counted as ``high``): the image is
scaled to fit 2048 × 2048, then so that its shorter side is at most 768 px; each 512-px tile
costs 170 tokens, plus 85. The size is read from a data URL's PNG, JPEG, GIF or WebP header;
an image whose size cannot be read (a remote URL, a file id) counts as 1024 × 1024 (765 tokens).
"""

from __future__ import annotations

import base64
import binascii
import math
import struct
from collections.abc import Mapping
from typing import Any

__all__ = ["DEFAULT_SIZE", "image_size", "image_tokens", "image_tokens_of"]

BASE_TOKENS = 85
TILE_TOKENS = 170
TILE = 512
DEFAULT_SIZE = (1024, 1024)
#: How much of a data URL's base64 is decoded to find the size (a JPEG's frame header may come
#: after its metadata: tens of kilobytes).
_HEAD_CHARS = 256 * 1024
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _png(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return None


def _gif(data: bytes) -> tuple[int, int] | None:
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP" or len(data) < 30:
        return None
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def _jpeg(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        at += 2 + length
    return None


def image_size(url: str) -> tuple[int, int] | None:
    """The width and height of a ``data:image/…;base64,`` URL's image, if its header says."""
    if not url.startswith("data:"):
        return None
    meta, _, payload = url.partition(",")
    if not meta.endswith(";base64"):
        return None
    head = payload[: _HEAD_CHARS - _HEAD_CHARS % 4]
    try:
        data = base64.b64decode(head[: len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return None
    for read in (_png, _jpeg, _gif, _webp):
        size = read(data)
        if size is not None:
            return size if size[0] > 0 and size[1] > 0 else None
    return None


def image_tokens(url: str, detail: str | None) -> int:
    """What one image costs (see the module's docstring)."""
    if detail == "low":
        return BASE_TOKENS
    pixels = image_size(url) or DEFAULT_SIZE
    scale = min(1.0, 2048 / max(pixels))
    scale *= min(1.0, 768 / (min(pixels) * scale))
    tiles = math.ceil(pixels[0] * scale / TILE) * math.ceil(pixels[1] * scale / TILE)
    return BASE_TOKENS + TILE_TOKENS * tiles


def image_tokens_of(content: Any) -> int:
    """The tokens of the images among a message's content parts (Chat ``image_url`` parts,
    Responses ``input_image`` ones)."""
    if not isinstance(content, list):
        return 0
    total = 0
    for part in content:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "image_url":
            image = part.get("image_url")
            if isinstance(image, Mapping):
                total += image_tokens(str(image.get("url") or ""), image.get("detail"))
            elif isinstance(image, str):
                total += image_tokens(image, None)
        elif kind == "input_image":
            total += image_tokens(str(part.get("image_url") or ""), part.get("detail"))
    return total
