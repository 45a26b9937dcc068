"""What a journal entry keeps of an answer is the answer's bytes, not the buffer they were
encoded in: orjson hands back bytes that keep the whole buffer it wrote them in (4 KiB and up,
doubling), and a thousand entries of a long load test kept several times their size alive."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.store import Unparsed, operations


def _usable_size() -> Callable[[int], int]:
    """glibc's size of the block malloc gave at an address (what it keeps for it)."""
    library = ctypes.util.find_library("c")
    if not sys.platform.startswith("linux") or library is None:
        pytest.skip("needs glibc's malloc_usable_size")
    function = ctypes.CDLL(library).malloc_usable_size
    function.restype, function.argtypes = ctypes.c_size_t, [ctypes.c_void_p]
    size: Callable[[int], int] = function
    return size


def _chat(n: int) -> dict[str, object]:
    return {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"Order {n}?"}]}


def _responses(n: int) -> dict[str, object]:
    return {"model": "gpt-4o-mini", "input": f"Tell me about order {n}"}


def _embeddings(n: int) -> dict[str, object]:
    return {"model": "text-embedding-3-small", "input": f"order {n}"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/chat/completions", _chat),  # a turn's answer, new requests: the lane's
        ("POST", "/v1/responses", _responses),
        ("POST", "/v1/embeddings", _embeddings),
        ("GET", "/v1/models", None),  # an answer that is not a turn
    ],
)
def test_a_journaled_body_holds_its_own_bytes(
    server: BackgroundServer,
    api_key: str,
    method: str,
    path: str,
    body: Callable[[int], dict[str, object]] | None,
) -> None:
    usable_size = _usable_size()
    for n in range(3):
        answer = httpx.request(
            method,
            server.url + path,
            json=body(n) if body else None,
            headers={"Authorization": f"Bearer {api_key}"},
        )
        assert answer.status_code == 200, answer.text
    entries = operations.journal(server.app.state.engine.store, api_key)
    assert len(entries) == 3
    for entry in entries:
        assert isinstance(entry.response, Unparsed)
        raw = entry.response.raw
        assert isinstance(raw, bytes)
        assert len(raw) > 600  # kept by malloc (above pymalloc's 512 bytes): measurable
        # The block holds the object's header and its bytes, and malloc's rounding: not the
        # 4 KiB or more of the buffer it was encoded in.
        assert usable_size(id(raw)) < sys.getsizeof(raw) + 64, (len(raw), usable_size(id(raw)))
