"""The inspector reads every family's calls as conversations (headless Chromium): Anthropic's
system, messages, tool_use/tool_result and thinking; Gemini's contents and parts; the answer
assembled from each family's whole body or stream events, with its tool calls and usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.inspector import SHOTS, entry, open_call, open_inspector, serve_scenario

KEY = "sk-families-0001"
ANTHROPIC = {"authorization": f"Bearer {KEY}", "anthropic-version": "2023-06-01"}
GEMINI = {"x-goog-api-key": KEY}
FLASH = "/v1beta/models/gemini-2.5-flash"

SCENARIO = """
name: families
fallback: generate
rules:
  - id: after-tool
    when: {tool_result: {name: {equals: get_weather}}}
    reply: {text: "It is sunny in Paris.", latency: {ttft: 0.02, chunk_interval: 0.003}}
  - id: weather-tool
    when: {last_user: {contains: weather}}
    reply:
      tool_calls:
        - {name: get_weather, arguments: {city: Paris}}
"""
WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    yield from serve_scenario(SCENARIO, KEY)


def send(mock: BackgroundServer, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
    answer = httpx.post(mock.url + path, json=body, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text


def test_anthropic_calls_read_as_conversations_with_their_answers(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    tools = [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}]
    asked = {"role": "user", "content": "what is the weather?"}
    base = {"model": "claude-sonnet-4-5", "max_tokens": 200, "system": "You are terse."}
    send(mock, "/v1/messages", {**base, "tools": tools, "messages": [asked]}, ANTHROPIC)
    called = entry(mock, 1, KEY)["response"]["content"][0]
    assert called["type"] == "tool_use"
    replied = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": called["id"], "content": "18 C"}],
    }
    history = [asked, {"role": "assistant", "content": [called]}, replied]
    send(
        mock,
        "/v1/messages",
        {**base, "tools": tools, "stream": True, "messages": history},
        ANTHROPIC,
    )
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")

    open_call(page, 1)
    conversation = page.inner_text("#conversation")
    assert "You are terse." in conversation
    assert "what is the weather?" in conversation
    assert "tools offered: get_weather" in conversation
    answer = page.inner_text("#answer")
    assert "→ get_weather" in answer
    assert json.dumps(called["input"], indent=2) in answer
    assert "finish: tool_use" in page.text_content("#answer-usage")

    open_call(page, 2)
    conversation = page.text_content("#conversation") or ""  # as written, not as styled
    assert f"result of {called['id']}" in conversation
    assert "18 C" in conversation
    events = entry(mock, 2, KEY)["response"]
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == "It is sunny in Paris."
    assert page.text_content("#answer-text") == text
    assert "finish: end_turn" in page.text_content("#answer-usage")
    assert "first token +" in page.text_content("#timeline-note")
    page.screenshot(path=str(SHOTS / "inspector-anthropic-1366.png"))
    assert errors == []


def test_gemini_calls_read_as_conversations_with_their_answers(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    tools = [{"functionDeclarations": [{"name": "get_weather", "parameters": WEATHER_SCHEMA}]}]
    asked = {"role": "user", "parts": [{"text": "what is the weather?"}]}
    system = {"parts": [{"text": "You are terse."}]}
    body = {"systemInstruction": system, "tools": tools, "contents": [asked]}
    send(mock, FLASH + ":generateContent", body, GEMINI)
    call = entry(mock, 1, KEY)["response"]["candidates"][0]["content"]["parts"][0]["functionCall"]
    result = {"functionResponse": {"name": "get_weather", "response": {"temp": "18 C"}}}
    history = [
        asked,
        {"role": "model", "parts": [{"functionCall": call}]},
        {"role": "user", "parts": [result]},
    ]
    send(mock, FLASH + ":streamGenerateContent?alt=sse", {**body, "contents": history}, GEMINI)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")

    open_call(page, 1)
    conversation = page.inner_text("#conversation")
    assert "You are terse." in conversation
    assert "tools offered: get_weather" in conversation
    answer = page.inner_text("#answer")
    assert "→ get_weather" in answer
    assert json.dumps(call["args"], indent=2) in answer
    assert "finish: STOP" in page.text_content("#answer-usage")

    open_call(page, 2)
    assert "result of get_weather" in (page.text_content("#conversation") or "")
    chunks = entry(mock, 2, KEY)["response"]
    assert chunks
    text = "".join(
        p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"]
    )
    assert text == "It is sunny in Paris."
    assert page.text_content("#answer-text") == text
    assert "in " in page.text_content("#answer-usage")  # usageMetadata read as in / out / total
    assert "first token +" in page.text_content("#timeline-note")  # paced: a time per event
    page.screenshot(path=str(SHOTS / "inspector-gemini-1366.png"))
    assert errors == []


AKID = "AKIAFAMILIES0000001"
SIGNED = {
    "authorization": f"AWS4-HMAC-SHA256 Credential={AKID}/20260101/us-east-1/bedrock/"
    "aws4_request, SignedHeaders=host, Signature=0f"
}
HAIKU = "/model/anthropic.claude-3-haiku-20240307-v1:0"


@pytest.fixture
def bedrock() -> Iterator[BackgroundServer]:
    yield from serve_scenario(SCENARIO, AKID)


def test_bedrock_calls_read_as_conversations_with_their_answers(
    bedrock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, bedrock)
    spec = {"toolSpec": {"name": "get_weather", "inputSchema": {"json": WEATHER_SCHEMA}}}
    asked = {"role": "user", "content": [{"text": "what is the weather?"}]}
    body = {"system": [{"text": "You are terse."}], "toolConfig": {"tools": [spec]}}
    send(bedrock, HAIKU + "/converse", {**body, "messages": [asked]}, SIGNED)
    used = entry(bedrock, 1, AKID)["response"]["output"]["message"]["content"][0]["toolUse"]
    result = {"toolResult": {"toolUseId": used["toolUseId"], "content": [{"text": "18 C"}]}}
    history = [asked, {"role": "assistant", "content": [{"toolUse": used}]}]
    history.append({"role": "user", "content": [result]})
    send(bedrock, HAIKU + "/converse-stream", {**body, "messages": history}, SIGNED)
    anthropic = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 100}
    invoked = {**anthropic, "messages": [{"role": "user", "content": "hello there"}]}
    send(bedrock, HAIKU + "/invoke-with-response-stream", invoked, SIGNED)
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 3")

    open_call(page, 1)
    conversation = page.inner_text("#conversation")
    assert "You are terse." in conversation
    assert "tools offered: get_weather" in conversation
    answer = page.inner_text("#answer")
    assert "→ get_weather" in answer
    assert json.dumps(used["input"], indent=2) in answer
    assert "finish: tool_use" in page.text_content("#answer-usage")

    open_call(page, 2)
    assert f"result of {used['toolUseId']}" in (page.text_content("#conversation") or "")
    assert page.text_content("#answer-text") == "It is sunny in Paris."
    assert "finish: end_turn" in page.text_content("#answer-usage")

    open_call(page, 3)
    assert "hello there" in page.inner_text("#conversation")
    text = page.text_content("#answer-text") or ""
    assert text  # the chunks' base64 Anthropic events, decoded and assembled
    summary = entry(bedrock, 3, AKID)
    assert summary["stream"] is True
    assert page.locator("#timeline-svg .mark").count() == len(summary["response"])
    page.screenshot(path=str(SHOTS / "inspector-bedrock-1366.png"))
    assert errors == []


def test_ollama_calls_read_as_conversations_with_their_answers(
    mock: BackgroundServer, new_page: Any
) -> None:
    page, errors = open_inspector(new_page, mock)
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    asked = {"role": "user", "content": "what is the weather?"}
    body = {"model": "llama3.2", "stream": False, "tools": [tool]}
    system = {"role": "system", "content": "You are terse."}
    send(
        mock, "/api/chat", {**body, "messages": [system, asked]}, {"authorization": f"Bearer {KEY}"}
    )
    call = entry(mock, 1, KEY)["response"]["message"]["tool_calls"][0]
    history = [system, asked, {"role": "assistant", "content": "", "tool_calls": [call]}]
    history.append({"role": "tool", "tool_name": "get_weather", "content": "18 C"})
    streamed = {**body, "stream": True, "messages": history}
    send(mock, "/api/chat", streamed, {"authorization": f"Bearer {KEY}"})
    page.wait_for_function("() => document.querySelectorAll('#calls tr').length === 2")

    open_call(page, 1)
    conversation = page.inner_text("#conversation")
    assert "You are terse." in conversation
    assert "tools offered: get_weather" in conversation
    answer = page.inner_text("#answer")
    assert "→ get_weather" in answer
    assert json.dumps(call["function"]["arguments"], indent=2) in answer

    open_call(page, 2)
    assert "result of get_weather" in (page.text_content("#conversation") or "")
    assert page.text_content("#answer-text") == "It is sunny in Paris."
    assert "finish: stop" in page.text_content("#answer-usage")
    assert "first token +" in page.text_content("#timeline-note")
    page.screenshot(path=str(SHOTS / "inspector-ollama-1366.png"))
    assert errors == []
