"""Every id, every "now" and every random number generator.

This is the only module allowed to touch clocks and randomness (a ruff rule bans them
elsewhere). Randomness is always *derived*: a stable hash (blake2b) of the inputs that should
determine it, never Python's salted ``hash()``, never a process-wide generator.
"""

from __future__ import annotations

import _random
import base64
import hashlib
import random
import string
import struct
import time
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Protocol

from mockserver.values import value_class

__all__ = [
    "DEFAULT_FROZEN_EPOCH",
    "Clock",
    "FrozenClock",
    "RealClock",
    "child_hex_id",
    "derive_rng",
    "hex_id",
    "hex_numbering",
    "numbered_hex_id",
    "numbered_opaque_id",
    "obfuscator",
    "opaque_id",
    "opaque_numbering",
    "rfc3339",
    "rfc3339_nano",
    "rfc3339_nanos",
    "signature",
    "stable_digest",
    "uuid_id",
]

#: 2026-01-01T00:00:00Z — the "now" of a frozen clock unless told otherwise.
DEFAULT_FROZEN_EPOCH = 1_767_225_600

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"

Part = str | bytes | int | None


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...


class RealClock:
    def now(self) -> float:
        return time.time()

    def __repr__(self) -> str:
        return "RealClock()"


@value_class
class FrozenClock:
    epoch: float = DEFAULT_FROZEN_EPOCH

    def now(self) -> float:
        return self.epoch


def rfc3339(seconds: float) -> str:
    """``2026-01-01T00:00:12Z``: an instant of a clock, in whole seconds (rounded up: a reset
    time is never before the reset)."""
    whole = -int(-seconds // 1)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(whole))


def rfc3339_nano(seconds: float, nanoseconds: int = 0) -> str:
    """``2026-01-01T00:00:00.0123Z``: an instant of a clock plus ``nanoseconds``, as Go writes
    a ``time.Time`` (RFC 3339 to the nanosecond, trailing zeros left out)."""
    total = round(seconds * 1_000_000_000) + nanoseconds
    whole, fraction = divmod(total, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    digits = f"{fraction:09d}".rstrip("0")
    return f"{text}.{digits}Z" if digits else f"{text}Z"


def rfc3339_nanos(instants: Iterable[int]) -> list[bytes]:
    """:func:`rfc3339_nano` of each instant (nanoseconds since the epoch), encoded; each whole
    second is written once (an Ollama stream's lines, a few milliseconds apart, share a few)."""
    seconds: dict[int, str] = {}
    written = []
    for total in instants:
        whole, fraction = divmod(total, 1_000_000_000)
        text = seconds.get(whole)
        if text is None:
            text = seconds[whole] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        digits = f"{fraction:09d}".rstrip("0")
        written.append((f"{text}.{digits}Z" if digits else f"{text}Z").encode())
    return written


#: Monotonic seconds, for measuring durations (never for content): the C function itself, no
#: Python frame around it (a request is timed twice).
monotonic: Callable[[], float] = time.perf_counter


_LENGTH = struct.Struct(">I").pack


def _encode(parts: Iterable[Part]) -> bytes:
    out: list[bytes] = []
    for part in parts:
        if part.__class__ is str:  # the common case first: this runs per stream frame
            chunk = b"s" + part.encode("utf-8", "surrogatepass")
        elif part is None:
            chunk = b"\x00"
        elif isinstance(part, bytes):
            chunk = b"b" + part
        elif isinstance(part, int):
            chunk = b"i" + str(part).encode()
        else:
            chunk = b"s" + part.encode("utf-8", "surrogatepass")
        out.append(_LENGTH(len(chunk)))
        out.append(chunk)
    return b"".join(out)


def stable_digest(*parts: Part, size: int = 16) -> bytes:
    """A process-independent digest of ``parts`` (length-prefixed, so no ambiguity)."""
    return hashlib.blake2b(_encode(parts), digest_size=size).digest()


_new_random = random.Random.__new__
_seed_random = _random.Random.seed


def derive_rng(*parts: Part) -> random.Random:
    """A generator seeded by a stable hash of ``parts``.

    ``random.Random(n)`` for an int ``n``, without its Python layers (``__init__`` calls
    ``seed``, which checks the seed's type, then calls this C ``seed``): the same state."""
    rng = _new_random(random.Random)
    _seed_random(rng, int.from_bytes(stable_digest(*parts), "big"))
    rng.gauss_next = None  # type: ignore[attr-defined]  # set by __init__, read by gauss
    return rng


#: byte → an alphanumeric character (62 symbols over 256 bytes: a bias no id cares about).
_TO_ALNUM = bytes((_ALNUM * 5).encode()[:256])


def _draw(digest: bytes, length: int) -> str:
    """``length`` alphanumerics from ``digest`` (which must be at least that long)."""
    return digest[:length].translate(_TO_ALNUM).decode()


def opaque_id(prefix: str, *parts: Part, length: int = 29) -> str:
    """``prefix`` + ``length`` alphanumerics from ``parts`` (the ``chatcmpl-…`` look)."""
    digest = stable_digest(prefix, *parts, size=max(16, length))
    return prefix + _draw(digest, length)


def signature(*parts: Part, size: int = 96) -> str:
    """An opaque base64 token of ``size`` bytes from ``parts``: a thought signature (what a
    model hands back so that its reasoning can be resumed; only its own maker reads it)."""
    digest = hashlib.shake_128(stable_digest("signature", *parts)).digest(size)
    return base64.b64encode(digest).decode()


def hex_id(prefix: str, *parts: Part, length: int = 32) -> str:
    """``prefix`` + ``length`` hex digits from ``parts`` (``req_…``, ``resp_…``, ``fp_…``)."""
    digest = stable_digest(prefix, *parts, size=(length + 1) // 2)
    return prefix + digest.hex()[:length]


def uuid_id(*parts: Part) -> str:
    """A version-4-shaped UUID from ``parts`` (Azure's ``apim-request-id`` look)."""
    digest = bytearray(stable_digest("uuid", *parts))
    digest[6] = digest[6] & 0x0F | 0x40  # the version nibble
    digest[8] = digest[8] & 0x3F | 0x80  # the variant bits
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@lru_cache(maxsize=4096)
def _head(size: int, head: tuple[Part, ...]) -> Any:
    """The hash state after ``head`` (a namespace's id prefix, say), to continue from."""
    return hashlib.blake2b(_encode(head), digest_size=size)


# The two below hash ``(prefix, *parts)`` once per process (``_head``), then the number: what
# ``stable_digest(prefix, *parts, number)`` hashes. (Spelt out in each, not a helper's call:
# they run for each request's ids.)


def numbered_opaque_id(prefix: str, *parts: Part, number: int, length: int = 29) -> str:
    """``opaque_id(prefix, *parts, number)``, cheaper when ``parts`` repeat (a namespace's
    request ids: only the number changes)."""
    state = _head(max(16, length), (prefix, *parts)).copy()
    chunk = b"i%d" % number  # _encode((number,)), without its loop
    state.update(_LENGTH(len(chunk)) + chunk)
    return prefix + _draw(state.digest(), length)


def numbered_hex_id(prefix: str, *parts: Part, number: int, length: int = 32) -> str:
    """``hex_id(prefix, *parts, number)``, cheaper when ``parts`` repeat."""
    state = _head((length + 1) // 2, (prefix, *parts)).copy()
    chunk = b"i%d" % number
    state.update(_LENGTH(len(chunk)) + chunk)
    digits: str = state.hexdigest()
    return prefix + digits[:length]


def hex_numbering(prefix: str, *parts: Part, length: int = 32) -> Callable[[int], str]:
    """:func:`numbered_hex_id` of ``prefix`` and ``parts`` for any number, ``(prefix, *parts)``
    hashed once (a recipe's: each replay is numbered anew)."""
    head = hashlib.blake2b(_encode((prefix, *parts)), digest_size=(length + 1) // 2)

    def numbered(number: int) -> str:
        state = head.copy()
        chunk = b"i%d" % number
        state.update(_LENGTH(len(chunk)) + chunk)
        digits: str = state.hexdigest()
        return prefix + digits[:length]

    return numbered


def opaque_numbering(prefix: str, *parts: Part, length: int = 29) -> Callable[[int], str]:
    """:func:`numbered_opaque_id` of ``prefix`` and ``parts`` for any number, hashed as
    :func:`hex_numbering` hashes."""
    head = hashlib.blake2b(_encode((prefix, *parts)), digest_size=max(16, length))

    def numbered(number: int) -> str:
        state = head.copy()
        chunk = b"i%d" % number
        state.update(_LENGTH(len(chunk)) + chunk)
        return prefix + _draw(state.digest(), length)

    return numbered


#: Bytes of the obfuscation stream per frame: a length byte, then up to 15 characters.
_PAD_STRIDE = 16


def obfuscator(*parts: Part) -> Obfuscator:
    """``pad(frame_number, payload_size)``: the padding the real API puts in a stream frame's
    ``obfuscation``. One extendable digest (SHAKE-128) per stream, cut into 16-byte slots:
    frame ``n``'s padding is read from slot ``n`` alone, so it is a pure function of the frame
    number (the order frames are rendered in does not matter)."""
    if len(parts) == 1 and parts[0].__class__ is str:  # an answer's id: once per stream
        state = _head(16, ("obfuscation",)).copy()
        state.update(_chunk(parts[0]))
        return Obfuscator(state.digest())
    return Obfuscator(stable_digest("obfuscation", *parts))


def _chunk(text: str) -> bytes:
    """``_encode((text,))``, without its loop."""
    chunk = b"s" + text.encode("utf-8", "surrogatepass")
    return _LENGTH(len(chunk)) + chunk


def child_hex_id(prefix: str, parent: str, index: int, *, length: int = 32) -> str:
    """``hex_id(prefix, parent, index, length=length)``: the id of a thing's ``index``-th part
    (a response's output items), the prefix hashed once per process (this runs for each item
    of each replayed response)."""
    state = _head((length + 1) // 2, (prefix,)).copy()
    tail = b"i%d" % index
    state.update(_chunk(parent) + _LENGTH(len(tail)) + tail)
    digits: str = state.hexdigest()
    return prefix + digits[:length]


class Obfuscator:
    """:func:`obfuscator`'s padding, frame by frame (a call), or for a template's frames at
    once (:meth:`written`, :meth:`read`: a replayed Responses stream has dozens)."""

    __slots__ = ("_ascii", "_raw", "_seed", "_text")

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._raw = self._ascii = b""
        self._text = ""

    def _extend(self, end: int) -> None:
        """Digest at least ``end`` bytes (SHAKE's longer output starts with the shorter one:
        the bytes already read stay the same)."""
        self._raw = hashlib.shake_128(self._seed).digest(
            max(end, 2 * len(self._raw), 32 * _PAD_STRIDE)
        )
        self._ascii = self._raw.translate(_TO_ALNUM)
        self._text = self._ascii.decode()

    def __call__(self, number: int, payload_size: int) -> str:
        start = _PAD_STRIDE * number
        if start + _PAD_STRIDE > len(self._text):  # (read() leaves the text undecoded)
            self._extend(start + _PAD_STRIDE)
        length = 1 + (self._raw[start] + payload_size) % 15
        return self._text[start + 1 : start + 1 + length]

    @staticmethod
    def written(slots: Sequence[tuple[int, int]]) -> tuple[int, list[str]]:
        """For a fill written out once per template: how many bytes its ``(frame_number,
        payload_size)`` slots read, and for each an expression of its padding, encoded, over
        ``raw`` and ``text`` (what :meth:`read` gives): what a call gives, as bytes."""
        # 1 + (the slot's length byte + its payload's size) % 15 characters after that byte
        starts = [(_PAD_STRIDE * number, size) for number, size in slots]
        return max((start + _PAD_STRIDE for start, _ in starts), default=0), [
            f"text[{start + 1}:{start + 2} + (raw[{start}] + {size}) % 15]"
            for start, size in starts
        ]

    def read(self, end: int) -> tuple[bytes, bytes]:
        """The digest's first ``end`` bytes at least, and the same as alphanumerics (encoded)."""
        raw = self._raw
        if end > len(raw):  # only what the slots read (a call per frame digests ahead)
            raw = self._raw = hashlib.shake_128(self._seed).digest(end)
            self._ascii = raw.translate(_TO_ALNUM)
            self._text = ""  # (decoded by _extend, when a call needs it)
        return raw, self._ascii
