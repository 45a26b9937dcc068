"""The protocol-level fast path runs only on the uvicorn it was written for; on any other the
server says so once and serves the same bytes through plain ASGI."""

from __future__ import annotations

import logging

import pytest
import uvicorn

from mockserver.http import protocol
from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.wire import conversation, request

CHAT = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
STREAM = b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}],"stream":true}'
RESPONSES = b'{"model":"gpt-4o-mini","input":"Hello","stream":true,"max_output_tokens":16}'
GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
ASK = b'{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}'
CONVERSE = "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream"
SAY = b'{"messages":[{"role":"user","content":[{"text":"Hello"}]}]}'
OLLAMA = b'{"model":"llama3.2","messages":[{"role":"user","content":"Hello"}]}'


def test_the_installed_uvicorn_is_one_the_fast_path_was_written_for() -> None:
    assert protocol.supported(uvicorn.__version__), (
        f"uvicorn {uvicorn.__version__} is installed: check mockserver/http/protocol.py against "
        "it and add it to SUPPORTED_UVICORN (or pin uvicorn in pyproject.toml)"
    )


def test_versions_are_compared_by_major_and_minor() -> None:
    version = next(iter(protocol.SUPPORTED_UVICORN))
    assert protocol.supported(f"{version}.7")
    assert not protocol.supported("0.1.0")
    assert not protocol.supported("99.0.0")


def test_another_uvicorn_gets_its_own_protocol_and_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="mockserver"):
        chosen = protocol.http_protocol(None, version="99.0.0")
    assert chosen == "auto"
    (line,) = [r.getMessage() for r in caplog.records if r.name == "mockserver"]
    assert line.startswith("uvicorn 99.0.0 is not one mockserver's fast HTTP path was written")
    assert isinstance(protocol.http_protocol(None), type)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", CHAT),
        ("/v1/chat/completions", STREAM),
        ("/v1/responses", RESPONSES),
        (GEMINI + "?alt=sse&key=sk-g", ASK),
        (GEMINI + "?key=sk-g", ASK),
        (CONVERSE, SAY),
        ("/api/chat", OLLAMA),
    ],
    ids=[
        "chat",
        "chat-stream",
        "responses-stream",
        "gemini-sse",
        "gemini-array",
        "converse",
        "ollama",
    ],
)
def test_the_asgi_fallback_sends_the_bytes_of_the_fast_path(
    monkeypatch: pytest.MonkeyPatch, path: str, body: bytes
) -> None:
    fast = start_server(seed=5)
    monkeypatch.setattr(protocol, "SUPPORTED_UVICORN", frozenset())
    plain = start_server(seed=5)
    try:
        writes = [request(path, body) for _ in range(4)]
        assert conversation(plain, writes, 4) == conversation(fast, writes, 4)
        assert _served(plain) == _served(fast) == 2  # the lane answers either way
        assert plain._server.config.http == "auto"
        assert isinstance(fast._server.config.http, type)
    finally:
        fast.stop()
        plain.stop()


def _served(server: BackgroundServer) -> int:
    served: int = server.app.state.lane.replays.served
    return served
