"""Paced streams written by the protocol's lane on the event loop's one timer
(``http/pacing.py``): the same bytes, headers, journal and rule hits as the route's paced
writer (a server with the lane off), in every family's framing and through each fault; and two
streams at once through the openai SDK carry the bytes of the same answers unpaced."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.lanes import Send, lane_pair, lane_session, served_by_lane

SCENARIO = """
rules:
  - id: slow
    when: {last_user: {contains: slow}}
    reply: {text: slowly now then, latency: {ttft: 0.02, chunk_interval: 0.002}}
  - id: broken
    when: {last_user: {contains: broken}}
    reply:
      text: this stream breaks half way through
      latency: {ttft: 0.01, chunk_interval: 0.002}
      fault: {error_after: 2, error: {preset: server_error}}
  - id: endless
    when: {last_user: {contains: endless}}
    reply:
      text: no end in sight
      latency: {ttft: 0.01, chunk_interval: 0.002}
      fault: {no_done: true}
  - id: stalled
    when: {last_user: {contains: stalled}}
    reply: {text: a pause in the middle, fault: {stall_after: 2, stall_for: 0.03}}
  - id: garbled
    when: {last_user: {contains: garbled}}
    reply: {text: one frame is garbled, latency: {ttft: 0.01}, fault: {malformed_after: 1}}
"""
WORDS = ("slow", "broken", "endless", "stalled", "garbled")

AWS_KEY = "AKIAPACEDTEST0000001"
SIGNED = (
    f"AWS4-HMAC-SHA256 Credential={AWS_KEY}/20260101/us-east-1/bedrock/aws4_request, "
    f"SignedHeaders=host;x-amz-date, Signature={'f' * 64}"
)
GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
BEDROCK = "/model/anthropic.claude-3-5-haiku-20241022-v1:0"


def _chat(text: str) -> Send:
    return Send("/v1/chat/completions", {"model": "m", "stream": True, "messages": _said(text)})


def _said(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def _responses(text: str) -> Send:
    return Send("/v1/responses", {"model": "m", "input": text, "stream": True})


def _messages(text: str) -> Send:
    body = {"model": "claude-haiku-4-5", "max_tokens": 64, "stream": True}
    return Send("/v1/messages", {**body, "messages": _said(text)})


def _gemini(text: str, params: dict[str, str]) -> Send:
    return Send(GEMINI, {"contents": [{"role": "user", "parts": [{"text": text}]}]}, params)


def _converse(text: str) -> Send:
    return Send(
        BEDROCK + "/converse-stream", {"messages": [{"role": "user", "content": [{"text": text}]}]}
    )


def _invoke(text: str) -> Send:
    body = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": _said(text)}
    return Send(BEDROCK + "/invoke-with-response-stream", body)


def _ollama(text: str) -> Send:
    return Send("/api/chat", {"model": "llama3.2", "messages": _said(text)})


FAMILIES: dict[str, tuple[Any, str, dict[str, str]]] = {
    "chat": (_chat, "sk-paced", {"authorization": "Bearer sk-paced"}),
    "responses": (_responses, "sk-paced", {"authorization": "Bearer sk-paced"}),
    "messages": (
        _messages,
        "sk-ant-paced",
        {"x-api-key": "sk-ant-paced", "anthropic-version": "2023-06-01"},
    ),
    "gemini-sse": (lambda t: _gemini(t, {"alt": "sse"}), "g-paced", {"x-goog-api-key": "g-paced"}),
    "gemini-array": (lambda t: _gemini(t, {}), "g-paced", {"x-goog-api-key": "g-paced"}),
    "converse": (_converse, AWS_KEY, {"authorization": SIGNED, "x-amz-date": "20260101T000000Z"}),
    "invoke": (_invoke, AWS_KEY, {"authorization": SIGNED, "x-amz-date": "20260101T000000Z"}),
    "ollama": (_ollama, "ollama-paced", {"authorization": "Bearer ollama-paced"}),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_a_paced_stream_is_written_by_the_lane_as_by_the_route(family: str) -> None:
    ask, key, headers = FAMILIES[family]
    sends = [ask(word) for word in WORDS]
    with lane_pair() as (on, off):
        seen = lane_session(on, sends, key=key, scenario=SCENARIO, headers=headers)
        assert seen == lane_session(off, sends, key=key, scenario=SCENARIO, headers=headers)
        assert served_by_lane(on) == (0, len(sends))
        assert served_by_lane(off) == (0, 0)
        wheel = on.app.state.lane.wheel
    assert wheel is not None
    assert wheel.streams == 0


PACED = "latency: {ttft: 0.2, chunk_interval: 0.01}\nrules: []\n"
UNPACED = "rules: []\n"
ASK: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": _said("Tell me about pacing."),
    "max_completion_tokens": 12,
}


async def _streams(server: BackgroundServer) -> list[bytes]:
    """Two streamed chat completions at once, each in its own namespace, as raw bytes."""

    async def one(key: str) -> bytes:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=key, max_retries=0)
        async with (
            client,
            client.chat.completions.with_streaming_response.create(**ASK, stream=True) as response,
        ):
            return b"".join([chunk async for chunk in response.iter_bytes()])

    return list(await asyncio.gather(one("sk-pace-one"), one("sk-pace-two")))


def _load(server: BackgroundServer, scenario: str) -> None:
    for key in ("sk-pace-one", "sk-pace-two"):
        answer = httpx.put(
            f"{server.url}/__mockserver/scenario",
            content=scenario,
            headers={"authorization": f"Bearer {key}", "content-type": "application/yaml"},
        )
        assert answer.status_code == 200, answer.text


def test_two_paced_streams_at_once_carry_the_unpaced_answers_bytes() -> None:
    paced, plain = start_server(seed=3), start_server(seed=3)
    try:
        _load(paced, PACED)
        _load(plain, UNPACED)
        started = time.monotonic()
        got = asyncio.run(_streams(paced))
        took = time.monotonic() - started
        expected = asyncio.run(_streams(plain))
        wheel = paced.app.state.lane.wheel
    finally:
        paced.stop()
        plain.stop()
    assert all(b"data: [DONE]" in stream for stream in expected)
    assert got == expected
    assert got[0] != got[1]  # two namespaces, two answers
    assert took >= 0.2  # a lower bound: the ttft was waited
    assert wheel is not None
    assert wheel.streams == 0


def test_a_client_gone_mid_stream_stops_its_stream_journaled_as_cut() -> None:
    server = start_server(seed=3)
    slow = "latency: {ttft: 0.05, chunk_interval: 5}\nrules: []\n"
    try:
        _load(server, slow)
        body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
        with socket.create_connection((server.host, server.port)) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
                b"authorization: Bearer sk-pace-one\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\n\r\n%b" % (len(body), body)
            )
            seen = b""
            while b"data: {" not in seen:  # the first event, after the ttft
                seen += sock.recv(65536)
            wheel = server.app.state.lane.wheel
            assert wheel.streams == 1
        deadline = time.monotonic() + 5
        while wheel.streams and time.monotonic() < deadline:
            time.sleep(0.01)
        assert wheel.streams == 0
        auth = {"authorization": "Bearer sk-pace-one"}
        entry = httpx.get(f"{server.url}/__mockserver/calls/1", headers=auth).json()
    finally:
        server.stop()
    assert seen.startswith(b"HTTP/1.1 200 OK\r\n")
    assert entry["cut"] is True
    assert len(entry["timing"]) == 1  # the one event written before the client left
