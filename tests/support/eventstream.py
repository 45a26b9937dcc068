"""An AWS event-stream decoder for tests, written from the format's description (not from
``mockserver/render/eventstream.py``): each message's prelude, both CRC32s checked, its
headers typed, its payload."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

__all__ = ["Message", "decode_messages"]


@dataclass(frozen=True)
class Message:
    headers: dict[str, str]
    payload: bytes
    #: The message's bytes, as sent.
    raw: bytes


def _headers(raw: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    at = 0
    while at < len(raw):
        size = raw[at]
        name = raw[at + 1 : at + 1 + size].decode()
        at += 1 + size
        assert raw[at] == 7, f"header {name}: type {raw[at]}, not a string"
        (length,) = struct.unpack_from(">H", raw, at + 1)
        assert name not in headers, f"header {name} twice"
        headers[name] = raw[at + 3 : at + 3 + length].decode()
        at += 3 + length
    assert at == len(raw)
    return headers


def decode_messages(stream: bytes) -> list[Message]:
    """Every message of ``stream``, which must hold whole messages only; both CRCs checked."""
    messages = []
    at = 0
    while at < len(stream):
        total, head_length, prelude_crc = struct.unpack_from(">III", stream, at)
        assert zlib.crc32(stream[at : at + 8]) == prelude_crc, f"prelude CRC at byte {at}"
        raw = stream[at : at + total]
        assert len(raw) == total, f"message at byte {at} cut short"
        (message_crc,) = struct.unpack(">I", raw[-4:])
        assert zlib.crc32(raw[:-4]) == message_crc, f"message CRC at byte {at}"
        headers = _headers(raw[12 : 12 + head_length])
        messages.append(Message(headers, raw[12 + head_length : -4], raw))
        at += total
    return messages
