"""Record & replay of Bedrock Runtime: boto3 through a recording proxy in front of a second
mockserver, then a fresh server that only replays; exact recordings sent back byte for byte
(the event stream's messages included), distilled ones answering other families too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.support.bedrock import bedrock_client
from tests.support.eventstream import decode_messages
from tests.support.recording import start_recorder, start_upstream

MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
KEY = "AKIARECORDTEST000001"
WEATHER = {
    "toolSpec": {
        "name": "get_weather",
        "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
}


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def _asked(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"text": text}]}]


def _raw_stream(server: BackgroundServer, text: str) -> bytes:
    import httpx

    answer = httpx.post(
        f"{server.url}/model/{MODEL}/converse-stream",
        json={"messages": _asked(text)},
        headers={
            "authorization": f"AWS4-HMAC-SHA256 Credential={KEY}/20260101/us-east-1/bedrock/"
            "aws4_request, SignedHeaders=host, Signature=" + "a" * 64
        },
    )
    assert answer.status_code == 200
    return answer.content


def test_an_exact_recording_replays_the_same_event_stream(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "bedrock.yaml"
    recording = start_recorder(cassette, upstream=upstream.url, mode="once")
    try:
        recorded = _raw_stream(recording, "Tell me a story")
        client = bedrock_client(recording.url, KEY)
        whole = client.converse(modelId=MODEL, messages=_asked("Tell me a story"))
        client.close()
    finally:
        recording.stop()
    text = cassette.read_text()
    assert KEY not in text
    assert "Signature" not in text
    replay = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        replayed = _raw_stream(replay, "Tell me a story")
        client = bedrock_client(replay.url, KEY)
        again = client.converse(modelId=MODEL, messages=_asked("Tell me a story"))
        client.close()
    finally:
        replay.stop()
    assert replayed == recorded
    messages = decode_messages(replayed)
    assert messages[0].headers[":event-type"] == "messageStart"
    assert again["output"] == whole["output"]
    rules = load_file(cassette).rules
    assert [rule.when.api for rule in rules] == ["converse", "converse"]
    files = sorted(p.name for p in (tmp_path / "bedrock").iterdir())
    assert files == ["converse-001.json", "converse-002.json"]
    written = json.loads((tmp_path / "bedrock" / "converse-001.json").read_text())
    assert written["events"][0]["event"] == "messageStart"


def test_a_distilled_bedrock_recording_answers_openai_too(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "distilled.yaml"
    recording = start_recorder(cassette, upstream=upstream.url, mode="once", form="distilled")
    try:
        client = bedrock_client(recording.url, KEY)
        recorded = client.converse(modelId=MODEL, messages=_asked("Tell me a story"))
        tool = client.converse_stream(
            modelId=MODEL,
            messages=_asked("What is the weather?"),
            toolConfig={"tools": [WEATHER]},
        )
        tool_events = list(tool["stream"])
        client.close()
    finally:
        recording.stop()
    said = recorded["output"]["message"]["content"][0]["text"]
    calls = [e for e in tool_events if "contentBlockStart" in e]
    assert calls, "the upstream called no tool"
    replay = start_recorder(cassette, upstream=None, mode="none", seed=5)
    try:
        with openai.OpenAI(base_url=replay.base_url, api_key="sk-x", max_retries=0) as sdk:
            chat = sdk.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "Tell me a story"}]
            )
        client = bedrock_client(replay.url, KEY)
        streamed = client.converse_stream(modelId=MODEL, messages=_asked("Tell me a story"))
        text = "".join(
            e["contentBlockDelta"]["delta"].get("text", "")
            for e in streamed["stream"]
            if "contentBlockDelta" in e
        )
        called = client.converse(
            modelId=MODEL, messages=_asked("What is the weather?"), toolConfig={"tools": [WEATHER]}
        )
        client.close()
    finally:
        replay.stop()
    assert chat.choices[0].message.content == said
    assert text == said
    (block,) = called["output"]["message"]["content"]
    assert block["toolUse"]["name"] == "get_weather"
    assert block["toolUse"]["input"] == {"city": "Paris"}
