"""The AWS event-stream framing (``application/vnd.amazon.eventstream``): the one place that
knows what a Bedrock stream's message looks like on the wire.

::

    prelude     total length (4 bytes, big-endian), headers length (4), CRC32 of those 8 (4)
    headers     per header: name length (1), name, type 7 (a string), value length (2), value
    payload     the event's JSON body itself (never wrapped in the event's name)
    CRC32       of everything before it, prelude included (4)

An event carries ``:event-type`` (the union member botocore parses it as: ``messageStart``,
``chunk``…), ``:content-type`` and ``:message-type: event``; a failure after the 200 is a
message of type ``exception`` whose ``:exception-type`` names the exception member
(``throttlingException``, ``modelStreamErrorException``…). botocore checks both CRCs, and
dispatches on those headers alone.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from typing import Any, Final

import orjson

__all__ = [
    "MEDIA_TYPE",
    "decode_frames",
    "decode_sized",
    "decode_stream",
    "event_message",
    "exception_message",
    "frame_of",
    "is_exception",
    "message",
]

#: The streams' content type.
MEDIA_TYPE: Final = "application/vnd.amazon.eventstream"
_STRING: Final = 7
_PRELUDE: Final = 12
_JSON: Final = b"application/json"


def _header(name: str, value: bytes) -> bytes:
    raw = name.encode()
    return bytes([len(raw)]) + raw + bytes([_STRING]) + struct.pack(">H", len(value)) + value


def message(headers: list[tuple[str, str]], payload: bytes) -> bytes:
    """One event-stream message: its prelude, ``headers`` (string values, in order),
    ``payload``, and both CRC32s."""
    head = b"".join(_header(name, value.encode()) for name, value in headers)
    total = _PRELUDE + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event_message(event_type: str, payload: Any) -> bytes:
    """An event: ``payload`` (JSON-encoded unless already bytes) as the ``event_type`` member."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    headers = [
        (":event-type", event_type),
        (":content-type", _JSON.decode()),
        (":message-type", "event"),
    ]
    return message(headers, data)


def exception_message(exception_type: str, payload: Any) -> bytes:
    """An exception after the 200: ``payload`` (``{"message": …}``) as the ``exception_type``
    member (``throttlingException``…); botocore raises it as an ``EventStreamError``."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    headers = [
        (":exception-type", exception_type),
        (":content-type", _JSON.decode()),
        (":message-type", "exception"),
    ]
    return message(headers, data)


def is_exception(name: str) -> bool:
    """Is the stream member ``name`` an exception (every one's name ends so, no event's does)?"""
    return name.endswith("Exception")


def frame_of(name: str, data: bytes) -> bytes:
    """The message for a member and its JSON payload, as recorded: an exception's or an
    event's."""
    return exception_message(name, data) if is_exception(name) else event_message(name, data)


def decode_frames(stream: bytes) -> Iterator[tuple[dict[str, str], bytes]]:
    """The messages of a stream (whole ones: a cut message's bytes are left out), as their
    string headers and payload. Lengths and CRCs are trusted: these are our own bytes, or a
    recording of an upstream's."""
    for headers, payload, _ in decode_sized(stream):
        yield headers, payload


def decode_sized(stream: bytes) -> Iterator[tuple[dict[str, str], bytes, int]]:
    """:func:`decode_frames` with each message's size in bytes."""
    at = 0
    while at + _PRELUDE <= len(stream):
        total, head_length = struct.unpack_from(">II", stream, at)
        if total < _PRELUDE + 4 or at + total > len(stream):
            return
        headers = _headers(stream[at + _PRELUDE : at + _PRELUDE + head_length])
        yield headers, stream[at + _PRELUDE + head_length : at + total - 4], total
        at += total


def _headers(raw: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    at = 0
    while at < len(raw):
        size = raw[at]
        name = raw[at + 1 : at + 1 + size].decode()
        at += 1 + size
        kind = raw[at]
        at += 1
        if kind != _STRING:  # only string headers are sent; anything else ends the read
            break
        (length,) = struct.unpack_from(">H", raw, at)
        headers[name] = raw[at + 2 : at + 2 + length].decode()
        at += 2 + length
    return headers


def decode_stream(stream: bytes) -> list[Any]:
    """A stream's messages as the journal shows them: ``{member: payload}`` each, as boto3
    hands them to its caller."""
    decoded: list[Any] = []
    for headers, payload in decode_frames(stream):
        name = headers.get(":event-type") or headers.get(":exception-type") or ""
        try:
            value: Any = orjson.loads(payload)
        except orjson.JSONDecodeError:
            value = payload.decode("utf-8", errors="replace")
        decoded.append({name: value})
    return decoded
