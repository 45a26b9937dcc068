"""Record & replay of the Gemini API: google-genai (and raw httpx, for the bytes) through a
recording proxy in front of a second mockserver posing as the upstream, then the recordings
replayed by a fresh server, exactly (the bytes, in both stream framings) or distilled (to
either family, both ways); ``record --check`` against the upstream again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from google import genai
from google.genai import errors, types

from mockserver.cli import main
from mockserver.http.server import BackgroundServer
from mockserver.scenario.loader import load_file
from tests.support.recording import start_recorder, start_upstream

KEY = "AIzaSy-gemini-0123456789SECRET"
MODEL = "gemini-2.5-flash"
WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={"city": types.Schema(type=types.Type.STRING)},
                required=["city"],
            ),
        )
    ]
)


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    server = start_upstream(tmp_path, seed=7)
    yield server
    server.stop()


def gemini(server: BackgroundServer, key: str = KEY) -> genai.Client:
    options = types.HttpOptions(base_url=server.url, timeout=10_000)
    return genai.Client(api_key=key, http_options=options)


def asked(text: str) -> dict[str, object]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


def raw(server: BackgroundServer, method: str, text: str, *, key: str = KEY) -> httpx.Response:
    """A raw call: the key in ``?key=`` for an ``alt=sse`` stream, else in its header."""
    url = f"{server.url}/v1beta/models/{MODEL}:{method}"
    if method.endswith("?alt=sse"):
        return httpx.post(f"{url}&key={key}", json=asked(text), timeout=10)
    return httpx.post(url, json=asked(text), headers={"x-goog-api-key": key}, timeout=10)


def replayer(cassette: Path) -> BackgroundServer:
    """A fresh server that only replays (no upstream at all)."""
    return start_recorder(cassette, upstream=None, mode="none", seed=5)


def written(cassette: Path) -> str:
    files = [cassette, *sorted((cassette.parent / cassette.stem).iterdir())]
    assert len(files) > 1
    return "\n".join(f.read_text() for f in files)


CALLS = (
    ("generateContent", "Tell me a story"),
    ("streamGenerateContent?alt=sse", "Tell me a tale"),
    ("streamGenerateContent", "Tell me a fable"),
    ("streamGenerateContent", "rate me"),
)


def test_an_exact_gemini_recording_replays_the_bytes_of_both_stream_framings(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "gemini.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url)
    try:
        seen = [raw(recorder, method, text) for method, text in CALLS]
        with gemini(recorder) as client:
            said = client.models.generate_content(model=MODEL, contents="Hello there")
    finally:
        recorder.stop()
    assert [r.status_code for r in seen] == [200, 200, 200, 429]
    assert seen[1].content.startswith(b'data: {"candidates"')
    assert seen[1].content.endswith(b"\r\n\r\n")
    assert seen[2].content.startswith(b"[{")
    assert seen[3].content.startswith(b'[\n  {\n    "error"')
    server = replayer(cassette)
    try:
        again = [raw(server, method, text, key="another-key") for method, text in CALLS]
        with gemini(server, key="another-key") as client:
            replayed = client.models.generate_content(model=MODEL, contents="Hello there")
    finally:
        server.stop()
    assert [r.content for r in again] == [r.content for r in seen]
    assert [r.status_code for r in again] == [200, 200, 200, 429]
    assert again[1].headers["content-type"].startswith("text/event-stream")
    assert replayed.text == said.text
    assert replayed.response_id == said.response_id


def _sse_chunks(body: bytes) -> list[object]:
    frames = body.split(b"\r\n\r\n")
    assert frames[-1] == b""
    assert all(frame.startswith(b"data: ") for frame in frames[:-1])
    return [json.loads(frame.removeprefix(b"data: ")) for frame in frames[:-1]]


def test_an_exact_gemini_stream_replays_in_the_framing_the_client_asks_for(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    """A stream recorded as ``alt=sse`` events replays as one JSON array to a client that asks
    for one, and the other way round: the same chunks, framed as the API frames them."""
    cassette = tmp_path / "gemini.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url)
    try:
        as_events = raw(recorder, "streamGenerateContent?alt=sse", "Tell me a tale")
        as_array = raw(recorder, "streamGenerateContent", "Tell me a fable")
    finally:
        recorder.stop()
    assert as_events.status_code == as_array.status_code == 200
    server = replayer(cassette)
    try:
        events_as_array = raw(server, "streamGenerateContent", "Tell me a tale")
        array_as_events = raw(server, "streamGenerateContent?alt=sse", "Tell me a fable")
        with gemini(server) as client:  # google-genai streams as alt=sse
            parts = list(
                client.models.generate_content_stream(model=MODEL, contents="Tell me a fable")
            )
    finally:
        server.stop()
    assert events_as_array.headers["content-type"].startswith("application/json")
    assert events_as_array.content.startswith(b"[{\n")
    assert events_as_array.content.endswith(b"\n]")
    assert json.loads(events_as_array.content) == _sse_chunks(as_events.content)
    assert array_as_events.headers["content-type"].startswith("text/event-stream")
    assert _sse_chunks(array_as_events.content) == json.loads(as_array.content)
    fable = "".join(
        part["text"]
        for chunk in json.loads(as_array.content)
        for part in chunk["candidates"][0]["content"].get("parts", [])
        if "text" in part
    )
    assert "".join(part.text or "" for part in parts) == fable != ""


def test_a_gemini_recording_names_the_model_from_the_path_and_never_keeps_the_key(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "keys.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url)
    try:
        for method, text in CALLS:
            raw(recorder, method, text)
    finally:
        recorder.stop()
    text = written(cassette)
    assert KEY not in text
    assert "x-goog-api-key" not in text
    assert "key=" not in text
    rules = load_file(cassette).rules
    assert [r.when.stream for r in rules] == [False, True, True, True]
    for rule in rules:
        assert rule.when.api == "gemini"
        assert rule.when.model is not None
        assert rule.when.model.equals == MODEL
    sse = json.loads((tmp_path / "keys" / "gemini-002.json").read_text())
    assert sse["path"] == f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    assert sse["crlf"] is True


def test_a_distilled_gemini_recording_answers_openai_and_gemini_clients(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "distilled.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url, form="distilled")
    try:
        with gemini(recorder) as client:
            said = client.models.generate_content(model=MODEL, contents="Tell me a story")
            called = client.models.generate_content(
                model=MODEL,
                contents="Weather in Paris?",
                config=types.GenerateContentConfig(tools=[WEATHER]),
            )
            with pytest.raises(errors.ClientError):
                client.models.generate_content(model=MODEL, contents="rate me")
    finally:
        recorder.stop()
    assert said.text
    assert KEY not in written(cassette)
    server = replayer(cassette)
    try:
        with gemini(server) as client:
            stream = client.models.generate_content_stream(model=MODEL, contents="Tell me a story")
            streamed = "".join(chunk.text or "" for chunk in stream)
        with openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as plain:
            chat = plain.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "Tell me a story"}]
            )
            tool = {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
            call = plain.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": "Weather in Paris?"}],
                tools=[tool],  # type: ignore[list-item]
            )
            with pytest.raises(openai.RateLimitError) as limited:
                plain.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": "rate me"}]
                )
    finally:
        server.stop()
    assert streamed == said.text
    assert chat.choices[0].message.content == said.text
    assert called.function_calls is not None
    [recorded_call] = called.function_calls
    [replayed_call] = call.choices[0].message.tool_calls or []
    assert replayed_call.function.name == recorded_call.name == "get_weather"  # type: ignore[union-attr]
    assert json.loads(replayed_call.function.arguments) == recorded_call.args == {"city": "Paris"}  # type: ignore[union-attr]
    assert limited.value.response.headers["retry-after"] == "3"


def test_a_distilled_openai_recording_answers_a_gemini_client(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "openai.yaml"
    recorder = start_recorder(cassette, upstream=upstream.base_url, form="distilled")
    try:
        with openai.OpenAI(base_url=recorder.base_url, api_key=KEY, max_retries=0) as plain:
            chat = plain.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "Tell me a story"}]
            )
            with pytest.raises(openai.RateLimitError):
                plain.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": "rate me"}]
                )
    finally:
        recorder.stop()
    server = replayer(cassette)
    try:
        with gemini(server) as client:
            said = client.models.generate_content(model=MODEL, contents="Tell me a story")
            with pytest.raises(errors.ClientError) as limited:
                client.models.generate_content(model=MODEL, contents="rate me")
    finally:
        server.stop()
    assert said.text == chat.choices[0].message.content
    assert limited.value.code == 429
    assert limited.value.status == "RESOURCE_EXHAUSTED"
    details = limited.value.details["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"} in details


def test_a_recordings_own_key_goes_upstream_as_googles_key_header(
    tmp_path: Path, upstream: BackgroundServer
) -> None:
    cassette = tmp_path / "keyed.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url, api_key="upstream-gemini-key")
    try:
        raw(recorder, "streamGenerateContent?alt=sse", "hello", key="client-side-key")
    finally:
        recorder.stop()
    auth = {"x-goog-api-key": "upstream-gemini-key"}  # its namespace on the upstream
    calls = httpx.get(f"{upstream.url}/__mockserver/calls", headers=auth).json()["data"]
    assert [c["path"] for c in calls] == [f"/v1beta/models/{MODEL}:streamGenerateContent"]
    assert "client-side-key" not in written(cassette)


def test_record_check_replays_a_gemini_cassette_against_the_upstream(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "check.yaml"
    recorder = start_recorder(cassette, upstream=upstream.url)
    try:
        for method, text in CALLS[:3]:
            raw(recorder, method, text)
    finally:
        recorder.stop()
    (tmp_path / "other").mkdir()
    other = start_upstream(tmp_path / "other", seed=8)  # other texts, the same shapes
    try:
        assert main(["record", "--check", str(cassette), "--upstream", other.url]) == 0
        calls = httpx.get(
            f"{other.url}/__mockserver/calls",
            headers={"x-goog-api-key": "sk-mockserver-drift-check"},
        ).json()["data"]
    finally:
        other.stop()
    out = capsys.readouterr().out
    assert "3 recording(s) replayed against the upstream: 0 drifted, 0 failed" in out, out
    assert [c["path"] for c in calls] == [
        f"/v1beta/models/{MODEL}:generateContent",
        f"/v1beta/models/{MODEL}:streamGenerateContent",
        f"/v1beta/models/{MODEL}:streamGenerateContent",
    ]


def har_entry(response: httpx.Response, *, key: str) -> dict[str, object]:
    """A DevTools HAR entry of ``response``: the key in the URL's query, as a browser's
    page sends it, and in the request's headers."""
    request = response.request
    url = str(request.url) + ("&" if request.url.query else "?") + f"key={key}"
    headers = [{"name": k, "value": v} for k, v in response.headers.items()]
    return {
        "startedDateTime": "2025-06-01T10:00:00.000Z",
        "time": 120.0,
        "request": {
            "method": "POST",
            "url": url,
            "headers": [{"name": "x-goog-api-key", "value": key}],
            "postData": {"mimeType": "application/json", "text": request.content.decode()},
        },
        "response": {
            "status": response.status_code,
            "headers": headers,
            "content": {"mimeType": response.headers["content-type"], "text": response.text},
        },
        "timings": {"send": 1.0, "wait": 80.0, "receive": 39.0},
    }


def test_a_har_of_gemini_calls_imports_and_replays_exactly_or_distilled(
    tmp_path: Path, upstream: BackgroundServer, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = [raw(upstream, method, text) for method, text in CALLS[:2]]
    har = tmp_path / "page.har"
    entries = [har_entry(a, key=KEY) for a in answers]
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    exact, distilled = tmp_path / "exact.yaml", tmp_path / "distilled.yaml"
    assert main(["import", "har", str(har), "--out", str(exact)]) == 0
    assert main(["import", "har", str(har), "--out", str(distilled), "--form", "distilled"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert KEY not in written(exact) + written(distilled)
    assert "key=" not in written(exact)
    server = replayer(exact)
    try:
        again = [raw(server, method, text, key="another-key") for method, text in CALLS[:2]]
    finally:
        server.stop()
    assert [a.content for a in again] == [a.content for a in answers]
    server = replayer(distilled)
    try:
        with openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as plain:
            chat = plain.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "Tell me a tale"}]
            )
    finally:
        server.stop()
    texts = [
        json.loads(frame.removeprefix("data: "))["candidates"][0]["content"]["parts"][0]["text"]
        for frame in answers[1].text.split("\r\n\r\n")
        if frame
    ]
    assert len(texts) > 1  # the distilled reply is the stream's text, added up
    assert chat.choices[0].message.content == "".join(texts)
