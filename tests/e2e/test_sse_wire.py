"""Raw bytes of the chat stream, as a non-SDK client (curl, a browser) sees them."""

from __future__ import annotations

import json

import httpx

from mockserver.http.server import BackgroundServer

BODY = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Say hello"}],
    "stream": True,
}


def _post(server: BackgroundServer, api_key: str, body: dict[str, object]) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {api_key}"},
    )


def _frames(raw: bytes) -> list[bytes]:
    assert raw.endswith(b"\n\n")
    return raw[:-2].split(b"\n\n")


def test_stream_is_data_frames_ending_with_done(server: BackgroundServer, api_key: str) -> None:
    response = _post(server, api_key, BODY)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    frames = _frames(response.content)
    assert frames[-1] == b"data: [DONE]"
    assert all(f.startswith(b"data: {") for f in frames[:-1])
    first = json.loads(frames[0][len(b"data: ") :])
    assert first["object"] == "chat.completion.chunk"
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": "", "refusal": None}
    last = json.loads(frames[-2][len(b"data: ") :])
    assert last["choices"][0]["finish_reason"] == "stop"
    assert last["choices"][0]["delta"] == {}


def test_frames_are_compact_json_with_fields_in_api_order(
    server: BackgroundServer, api_key: str
) -> None:
    frames = _frames(_post(server, api_key, BODY).content)
    payload = frames[1][len(b"data: ") :]
    chunk = json.loads(payload)
    assert list(chunk)[:7] == [
        "id",
        "object",
        "created",
        "model",
        "service_tier",
        "system_fingerprint",
        "choices",
    ]
    assert payload == json.dumps(chunk, separators=(",", ":"), ensure_ascii=False).encode()


def test_include_usage_adds_a_final_usage_chunk(server: BackgroundServer, api_key: str) -> None:
    body = {**BODY, "stream_options": {"include_usage": True}}
    frames = _frames(_post(server, api_key, body).content)
    chunks = [json.loads(f[len(b"data: ") :]) for f in frames[:-1]]
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["total_tokens"] > 0
    assert all(c["usage"] is None for c in chunks[:-1])


def test_obfuscation_can_be_turned_off(server: BackgroundServer, api_key: str) -> None:
    on = [json.loads(f[6:]) for f in _frames(_post(server, api_key, BODY).content)[:-1]]
    body = {**BODY, "stream_options": {"include_obfuscation": False}}
    off = [json.loads(f[6:]) for f in _frames(_post(server, api_key, body).content)[:-1]]
    assert on
    assert off
    assert all("obfuscation" in c for c in on)
    assert all("obfuscation" not in c for c in off)


def test_non_streamed_body_is_indented_json_with_api_headers(
    server: BackgroundServer, api_key: str
) -> None:
    response = _post(server, api_key, {**BODY, "stream": False})
    assert response.headers["content-type"] == "application/json"
    assert response.content.startswith(b'{\n  "id": "chatcmpl-')
    assert response.headers["x-request-id"].startswith("req_")
    assert int(response.headers["openai-processing-ms"]) > 0
    assert response.headers["openai-version"] == "2020-10-01"
