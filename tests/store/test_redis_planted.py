"""Values planted in the mock's keys of a real ``redis-server`` — a pickle whose unpickling
would run code, garbage, JSON of another shape — are never run or used: each request that
reads one is the API's 503 naming the key, and the process logs it once."""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.support.redis_server import RedisServer

CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]}


class _Planted:
    """Unpickled, it would run ``touch MARKER``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def served(redis_server: RedisServer) -> Iterator[tuple[str, str, _Lines]]:
    prefix = RedisServer.new_prefix()
    app = create_app(Settings(port=0, state_url=redis_server.url, state_prefix=prefix))
    lines = _Lines()
    logger = logging.getLogger("mockserver")
    logger.addHandler(lines)
    try:
        with BackgroundServer(app) as server:
            yield server.url, prefix, lines
    finally:
        logger.removeHandler(lines)


def _call(url: str, key: str, method: str = "POST", path: str = "/v1/chat/completions") -> Any:
    body = CHAT if method == "POST" else None
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.request(method, url + path, json=body, headers=headers, timeout=10)


def test_planted_values_are_a_503_naming_their_key_never_code_run(
    served: tuple[str, str, _Lines], redis_server: RedisServer, tmp_path: Path
) -> None:
    url, prefix, lines = served
    marker = tmp_path / "ran"
    payload = pickle.dumps(_Planted(marker))
    assert _call(url, "sk-fine").status_code == 200  # the prefix is the mock's own
    admin = redis_server.client()
    planted = {  # key → (the request that reads it)
        f"{prefix}:ns:sk-pickle:state": ("POST", "/v1/chat/completions"),
        f"{prefix}:ns:sk-garbage:state": ("POST", "/v1/chat/completions"),
        f"{prefix}:ns:sk-shape:state": ("GET", "/__mockserver/scenario"),
    }
    admin.set(f"{prefix}:ns:sk-pickle:state", payload)
    admin.set(f"{prefix}:ns:sk-garbage:state", b"\x80\x05garbage\xff")
    admin.set(f"{prefix}:ns:sk-shape:state", b'{"counter": "not a number"}')
    for name in ("sk-pickle", "sk-garbage", "sk-shape"):
        admin.set(f"{prefix}:ns:{name}:ver", b"planted")
    admin.hset(f"{prefix}:ns:sk-fine:journal", "1", payload)  # over the real first entry
    admin.hset(f"{prefix}:ns:sk-fine:chat", "chatcmpl-planted", payload)
    admin.zadd(f"{prefix}:ns:sk-fine:chat:order", {"chatcmpl-planted": 1})
    admin.close()
    for key, (method, path) in planted.items():
        name = key.split(":")[-2]
        for _ in range(2):
            answer = _call(url, name, method, path)
            assert answer.status_code == 503, answer.text
            assert key in answer.json()["error"]["message"]
    for path, key in (
        ("/__mockserver/calls", f"{prefix}:ns:sk-fine:journal 1"),
        ("/v1/chat/completions/chatcmpl-planted", f"{prefix}:ns:sk-fine:chat chatcmpl-planted"),
        ("/v1/chat/completions", f"{prefix}:ns:sk-fine:chat chatcmpl-planted"),
    ):
        answer = _call(url, "sk-fine", "GET", path)
        assert answer.status_code == 503, answer.text
        assert key in answer.json()["error"]["message"]
    assert not marker.exists()
    logged = [line for line in lines.lines if "unreadable value at" in line]
    assert len(logged) == 5, logged  # once per key, however often it is read
    assert _call(url, "sk-other").status_code == 200  # the rest of the server serves on
    pickle.loads(payload)  # the payload is live: unpickled, it runs
    assert marker.exists()
