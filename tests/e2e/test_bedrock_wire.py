"""Bedrock's streams on the wire, read without boto3: every message's prelude and both CRC32s
checked by the tests' own decoder, its headers, and its payload the event's body itself (not
wrapped in the event's name)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.eventstream import decode_messages

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
BODY = {"messages": [{"role": "user", "content": [{"text": "Hello"}]}]}


@pytest.fixture
def session(request: pytest.FixtureRequest) -> str:
    return "bedrock-wire-" + request.node.name


def _post(server: BackgroundServer, session: str, operation: str, body: object) -> httpx.Response:
    return httpx.post(
        f"{server.url}/model/{MODEL}/{operation}",
        json=body,
        headers={"x-mockserver-session": session},
    )


def _expected_start() -> bytes:
    """``messageStart`` as the format says it is written, byte by byte."""

    def header(name: bytes, value: bytes) -> bytes:
        return bytes([len(name)]) + name + b"\x07" + struct.pack(">H", len(value)) + value

    headers = (
        header(b":event-type", b"messageStart")
        + header(b":content-type", b"application/json")
        + header(b":message-type", b"event")
    )
    payload = b'{"role":"assistant","p":"abcdefghijklm"}'
    prelude = struct.pack(">II", 12 + len(headers) + len(payload) + 4, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", zlib.crc32(message))


def test_converse_stream_messages_are_framed_byte_by_byte(
    server: BackgroundServer, session: str
) -> None:
    answer = _post(server, session, "converse-stream", BODY)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/vnd.amazon.eventstream"
    assert answer.headers["transfer-encoding"] == "chunked"
    messages = decode_messages(answer.content)
    assert messages, "no messages"
    assert messages[0].raw == _expected_start()
    names = [m.headers[":event-type"] for m in messages]
    assert names[0] == "messageStart"
    assert names[-2:] == ["messageStop", "metadata"]
    assert set(names[1:-2]) == {"contentBlockDelta", "contentBlockStop"}
    for message in messages:
        assert message.headers[":message-type"] == "event"
        assert message.headers[":content-type"] == "application/json"
        payload = json.loads(message.payload)
        assert message.headers[":event-type"] not in payload  # never wrapped in its name
        assert payload["p"]  # Bedrock's padding
    delta = json.loads(messages[1].payload)
    assert set(delta) == {"contentBlockIndex", "delta", "p"}
    assert set(delta["delta"]) == {"text"}


def test_an_exception_after_the_200_is_an_exception_message(
    server: BackgroundServer, session: str
) -> None:
    httpx.put(
        server.url + "/__mockserver/scenario",
        content="rules:\n  - reply:\n      text: one two three\n"
        "      fault: {error_after: 2, error: {preset: rate_limited}}\n",
        headers={"content-type": "application/yaml", "x-mockserver-session": session},
    ).raise_for_status()
    answer = _post(server, session, "converse-stream", BODY)
    assert answer.status_code == 200
    messages = decode_messages(answer.content)
    assert len(messages) == 3
    last = messages[-1]
    assert last.headers == {
        ":exception-type": "throttlingException",
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    assert json.loads(last.payload) == {
        "message": "Too many requests, please wait before trying again."
    }


def test_invoke_chunks_carry_anthropics_events_in_base64(
    server: BackgroundServer, session: str
) -> None:
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 20,
        "messages": [{"role": "user", "content": "Hello"}],
    }
    answer = _post(server, session, "invoke-with-response-stream", body)
    assert answer.status_code == 200
    assert answer.headers["x-amzn-bedrock-content-type"] == "application/json"
    messages = decode_messages(answer.content)
    assert messages, "no messages"
    events = []
    for message in messages:
        assert message.headers[":event-type"] == "chunk"
        chunk = json.loads(message.payload)
        assert set(chunk) <= {"bytes", "p"}
        events.append(json.loads(base64.b64decode(chunk["bytes"])))
    assert events[0]["type"] == "message_start"
    assert events[1] == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert events[-1]["type"] == "message_stop"


def test_the_journal_shows_the_events_boto3_hands_over(
    server: BackgroundServer, session: str
) -> None:
    _post(server, session, "converse-stream", BODY)
    calls = httpx.get(
        server.url + "/__mockserver/calls", headers={"x-mockserver-session": session}
    ).json()["data"]
    (call,) = calls
    assert call["api"] == "converse"
    assert call["stream"] is True
    assert call["path"] == f"/model/{MODEL}/converse-stream"
    entry = httpx.get(
        server.url + f"/__mockserver/calls/{call['seq']}",
        headers={"x-mockserver-session": session},
    ).json()
    response = entry["response"]
    assert response[0] == {"messageStart": {"role": "assistant", "p": "abcdefghijklm"}}
    assert "metadata" in response[-1]


def test_a_signed_requests_signature_and_token_never_reach_the_journal(
    server: BackgroundServer,
) -> None:
    key = "AKIAJOURNALTEST00001"
    signature = "f" * 64
    authorization = (
        f"AWS4-HMAC-SHA256 Credential={key}/20260101/us-east-1/bedrock/aws4_request, "
        f"SignedHeaders=host;x-amz-date, Signature={signature}"
    )
    answer = httpx.post(
        f"{server.url}/model/{MODEL}/converse",
        json=BODY,
        headers={
            "authorization": authorization,
            "x-amz-security-token": "session-token-secret",
            "x-amz-date": "20260101T000000Z",
        },
    )
    assert answer.status_code == 200
    calls = httpx.get(
        server.url + "/__mockserver/calls", headers={"authorization": f"Bearer {key}"}
    ).json()["data"]
    (call,) = calls
    entry = httpx.get(
        server.url + f"/__mockserver/calls/{call['seq']}",
        headers={"authorization": f"Bearer {key}"},
    )
    # The access key id names the namespace (as an API key does); what signs is never kept.
    assert entry.json()["namespace"] == key
    headers = entry.json()["request_headers"]
    assert headers["authorization"] == "[REDACTED]"
    assert headers["x-amz-security-token"] == "[REDACTED]"
    assert signature not in entry.text
    assert "session-token-secret" not in entry.text
