"""Record & replay of Anthropic's Messages API: the official ``anthropic`` SDK through a
recording proxy in front of a second mockserver posing as the upstream, then the cassette
replayed with no upstream — exactly (the same bytes) or distilled (a neutral reply that
answers an OpenAI client too, and the reverse); a HAR export of Anthropic traffic imported;
``record --check`` against the upstream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from mockserver.cli import main
from mockserver.http.server import BackgroundServer
from tests.support.recording import start_recorder, start_upstream

KEY = "sk-ant-api03-live0123456789SECRET"
MODEL = "claude-haiku-4-5"
WEATHER = {
    "name": "get_weather",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def _claude(server: BackgroundServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0, timeout=10)


def _ask(text: str, **more: object) -> dict[str, object]:
    return {
        "model": MODEL,
        "max_tokens": 60,
        "messages": [{"role": "user", "content": text}],
        **more,
    }


def _raw(server: BackgroundServer, body: dict[str, object]) -> tuple[int, bytes]:
    answer = httpx.post(
        server.url + "/v1/messages",
        json=body,
        headers={"x-api-key": KEY, "anthropic-version": "2023-06-01"},
    )
    return answer.status_code, answer.content


def _record(tmp_path: Path, upstream: BackgroundServer, form: str) -> tuple[Path, list[bytes]]:
    """Record a message, a stream, a tool call and a 429 (their raw bytes as sent)."""
    cassette = tmp_path / f"claude-{form}.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form=form)
    try:
        sent = [
            _raw(recorder, _ask("hello there")),
            _raw(recorder, _ask("stream me", stream=True)),
            _raw(recorder, _ask("weather?", tools=[WEATHER])),
            _raw(recorder, _ask("rate please")),
        ]
    finally:
        recorder.stop()
    assert [status for status, _ in sent] == [200, 200, 200, 429]
    return cassette, [content for _, content in sent]


def _replayer(cassette: Path, form: str) -> BackgroundServer:
    return start_recorder(cassette, upstream=None, form=form, mode="none")


def test_an_exact_replay_sends_the_recorded_bytes(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette, recorded = _record(tmp_path, upstream, "exact")
    replayer = _replayer(cassette, "exact")
    try:
        replayed = [
            _raw(replayer, _ask("hello there"))[1],
            _raw(replayer, _ask("stream me", stream=True))[1],
            _raw(replayer, _ask("weather?", tools=[WEATHER]))[1],
            _raw(replayer, _ask("rate please"))[1],
        ]
        with _claude(replayer) as claude, pytest.raises(anthropic.RateLimitError) as caught:
            claude.messages.create(**_ask("rate please"))  # type: ignore[call-overload]
    finally:
        replayer.stop()
    assert replayed == recorded
    assert recorded[1].startswith(b"event: message_start\n")
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.response.headers["request-id"].startswith("req_011C")


def test_no_key_or_organization_reaches_the_cassette(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette, _ = _record(tmp_path, upstream, "exact")
    written = [cassette, *sorted((tmp_path / cassette.stem).glob("*.json"))]
    assert len(written) == 5
    for path in written:
        text = path.read_text()
        assert KEY not in text
        assert "x-api-key" not in text
        assert "anthropic-organization-id" not in text
    first = json.loads(written[1].read_text())
    assert first["headers"]["request-id"].startswith("req_011C")
    assert any(name.startswith("anthropic-ratelimit-") for name in first["headers"])


def test_a_distilled_anthropic_recording_answers_an_openai_client(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette, recorded = _record(tmp_path, upstream, "distilled")
    said = json.loads(recorded[0])["content"][0]["text"]
    call = json.loads(recorded[2])["content"][-1]
    replayer = _replayer(cassette, "distilled")
    try:
        with openai.OpenAI(base_url=replayer.base_url, api_key=KEY, max_retries=0) as client:
            chat = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "hello there"}]
            )
            streamed = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "stream me"}], stream=True
            )
            chunks = "".join(c.choices[0].delta.content or "" for c in streamed if c.choices)
            tools = client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": "weather?"}],
                tools=[{"type": "function", "function": {"name": "get_weather"}}],
            )
            with pytest.raises(openai.RateLimitError):
                client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": "rate please"}]
                )
        with _claude(replayer) as claude:
            again = claude.messages.create(**_ask("hello there"))  # type: ignore[call-overload]
    finally:
        replayer.stop()
    assert chat.choices[0].message.content == said
    assert chunks == _streamed_text(recorded[1])
    (function_call,) = tools.choices[0].message.tool_calls or []
    assert function_call.function.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(function_call.function.arguments) == call["input"]  # type: ignore[union-attr]
    assert again.content[0].text == said  # type: ignore[union-attr]


def _streamed_text(stream: bytes) -> str:
    deltas = [
        json.loads(line[6:])["delta"]
        for line in stream.decode().splitlines()
        if line.startswith("data: ") and '"content_block_delta"' in line
    ]
    assert deltas
    return "".join(delta.get("text", "") for delta in deltas)


def test_a_distilled_openai_recording_answers_an_anthropic_client(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "chat.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    try:
        with openai.OpenAI(base_url=recorder.base_url, api_key=KEY, max_retries=0) as client:
            said = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "hello there"}]
            )
    finally:
        recorder.stop()
    replayer = _replayer(cassette, "distilled")
    try:
        with _claude(replayer) as claude:
            message = claude.messages.create(**_ask("hello there"))  # type: ignore[call-overload]
            with claude.messages.stream(**_ask("hello there")) as stream:  # type: ignore[arg-type]
                streamed = "".join(stream.text_stream)
    finally:
        replayer.stop()
    assert message.content[0].text == said.choices[0].message.content
    assert streamed == said.choices[0].message.content


def test_record_check_finds_no_drift_in_an_anthropic_cassette(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette, _ = _record(tmp_path, upstream, "exact")
    assert main(["record", "--check", str(cassette), "--upstream", upstream.base_url]) == 0


def test_record_check_asks_with_the_version_recorded_or_the_older_lines(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette, _ = _record(tmp_path, upstream, "exact")
    files = sorted((tmp_path / "claude-exact").glob("messages-*.json"))
    assert len(files) == 4
    for file in files:
        recording = json.loads(file.read_text(encoding="utf-8"))
        assert recording["request_headers"] == {"anthropic-version": "2023-06-01"}
        del recording["request_headers"]  # as a cassette recorded before they were kept
        file.write_text(json.dumps(recording), encoding="utf-8")
    # the upstream refuses a request without the header: no drift means it was sent
    assert main(["record", "--check", str(cassette), "--upstream", upstream.base_url]) == 0


def _har_entry(body: dict[str, object], answer: str, mime: str) -> dict[str, object]:
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "time": 100.0,
        "request": {
            "method": "POST",
            "url": "http://localhost:5173/api/v1/messages",
            "headers": [
                {"name": "x-api-key", "value": KEY},
                {"name": "anthropic-version", "value": "2023-06-01"},
                {"name": "content-type", "value": "application/json"},
            ],
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {
            "status": 200,
            "headers": [
                {"name": "content-type", "value": mime},
                {"name": "anthropic-organization-id", "value": "org-SECRET-uuid"},
            ],
            "content": {"mimeType": mime, "text": answer},
        },
        "timings": {"send": 1, "wait": 50, "receive": 49},
    }


def test_a_har_of_anthropic_traffic_imports_and_answers_both_families(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    with _claude(upstream) as claude:
        whole = claude.messages.with_raw_response.create(**_ask("hello there"))  # type: ignore[call-overload]
        body, said = whole.http_response.text, whole.parse().content[0].text
    _, stream = _raw(upstream, _ask("stream me", stream=True))
    har = tmp_path / "session.har"
    entries = [
        _har_entry(_ask("hello there"), body, "application/json"),
        _har_entry(_ask("stream me", stream=True), stream.decode(), "text/event-stream"),
    ]
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    out = tmp_path / "imported.yaml"
    assert main(["import", "har", str(har), "--out", str(out), "--form", "distilled"]) == 0
    written = "".join(p.read_text() for p in [out, *(tmp_path / "imported").glob("*")])
    assert KEY not in written
    assert "org-SECRET" not in written
    replayer = _replayer(out, "distilled")
    try:
        with _claude(replayer) as claude:
            message = claude.messages.create(**_ask("hello there"))  # type: ignore[call-overload]
        with openai.OpenAI(base_url=replayer.base_url, api_key=KEY, max_retries=0) as client:
            chat = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "stream me"}]
            )
    finally:
        replayer.stop()
    assert message.content[0].text == said
    assert chat.choices[0].message.content == _streamed_text(stream)


def test_the_upstream_key_goes_in_the_header_the_client_sent_its_own_in(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "keyed.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, api_key="sk-ant-upstream")
    try:
        status, _ = _raw(recorder, _ask("hello there"))
    finally:
        recorder.stop()
    assert status == 200
    calls = httpx.get(
        upstream.url + "/__mockserver/calls", headers={"x-api-key": "sk-ant-upstream"}
    ).json()["data"]
    assert [call["request_headers"].get("x-api-key") for call in calls] == ["[REDACTED]"]
    assert "authorization" not in calls[0]["request_headers"]
