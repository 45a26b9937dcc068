"""What the journal keeps of an answer: the bytes that were sent, parsed only when the journal
is read (``store.Unparsed``), each kept in a buffer of its own size."""

from __future__ import annotations

__all__ = ["kept"]


def kept(encoded: bytes) -> bytes:
    """``encoded`` as a journal keeps it: a copy in memory of its own size. orjson's bytes keep
    the whole buffer they were written in (4 KiB and up, doubling), fine for bytes that are
    sent and dropped, several times their size for bytes kept."""
    return memoryview(encoded).tobytes()
