"""The Gemini API's bytes on the wire: both stream framings, errors, keys, safety blocks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

MODEL_PATH = "/v1beta/models/gemini-2.0-flash"
BODY = {"contents": [{"role": "user", "parts": [{"text": "hello there"}]}]}


@pytest.fixture
def http(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"x-goog-api-key": api_key}) as client:
        yield client


def use(http: httpx.Client, yaml_text: str) -> None:
    answer = http.put(
        "/__mockserver/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert answer.status_code == 200, answer.text


def sse_payloads(raw: bytes) -> list[Any]:
    frames = raw.split(b"\r\n\r\n")
    assert frames[-1] == b""  # every frame ends with its blank line
    assert frames[:-1]
    for frame in frames[:-1]:
        assert frame.startswith(b"data: {")
        assert b"\n" not in frame
    return [json.loads(frame[len(b"data: ") :]) for frame in frames[:-1]]


def test_alt_sse_frames_are_data_lines_without_event_or_done(http: httpx.Client) -> None:
    answer = http.post(f"{MODEL_PATH}:streamGenerateContent?alt=sse", json=BODY)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert b"event:" not in answer.content
    assert b"[DONE]" not in answer.content
    chunks = sse_payloads(answer.content)
    assert len(chunks) > 2
    for chunk in chunks:
        assert list(chunk) == ["candidates", "usageMetadata", "modelVersion", "responseId"]
        assert chunk["candidates"][0]["content"]["role"] == "model"
    assert [("finishReason" in c["candidates"][0]) for c in chunks] == [False] * (
        len(chunks) - 1
    ) + [True]


def test_without_alt_the_stream_is_one_json_array_of_the_same_chunks(http: httpx.Client) -> None:
    array = http.post(f"{MODEL_PATH}:streamGenerateContent", json=BODY)
    events = http.post(f"{MODEL_PATH}:streamGenerateContent?alt=sse", json=BODY)
    assert array.status_code == 200
    assert array.headers["content-type"].startswith("application/json")
    assert array.content.startswith(b"[{\n")
    assert array.content.endswith(b"}\n]")
    assert b"\n,\r\n{" in array.content
    chunks = json.loads(array.content)
    streamed = sse_payloads(events.content)
    assert len(chunks) == len(streamed)
    for one, other in zip(chunks, streamed, strict=True):
        assert one["candidates"] == other["candidates"]
        assert one["usageMetadata"] == other["usageMetadata"]


def test_a_paced_array_stream_has_the_unpaced_ones_headers(http: httpx.Client) -> None:
    url = f"{MODEL_PATH}:streamGenerateContent"
    whole = http.post(url, json=BODY)
    use(
        http,
        "rules:\n  - when: {model: gemini-2.0-flash}\n"
        "    reply: {text: one two three, latency: {ttft: 0.01, chunk_interval: 0.002}}\n",
    )
    paced = http.post(url, json=BODY)
    assert paced.status_code == whole.status_code == 200
    assert json.loads(paced.content)[-1]["candidates"][0]["finishReason"] == "STOP"
    assert paced.headers["content-type"] == whole.headers["content-type"] == "application/json"


def test_a_refused_array_stream_is_an_array_of_its_error(http: httpx.Client) -> None:
    answer = http.post(f"{MODEL_PATH}:streamGenerateContent", json={"contents": []})
    assert answer.status_code == 400
    body = answer.json()
    assert isinstance(body, list)
    assert body[0]["error"]["status"] == "INVALID_ARGUMENT"
    plain = http.post(f"{MODEL_PATH}:streamGenerateContent?alt=sse", json={"contents": []})
    assert plain.json()["error"]["code"] == 400


def test_a_scripted_in_stream_error_ends_both_framings(http: httpx.Client) -> None:
    use(
        http,
        """
name: broken
rules:
  - id: cut
    reply:
      text: "one two three four five six"
      fault: {error_after: 2, error: {preset: overloaded}}
""",
    )
    events = http.post(f"{MODEL_PATH}:streamGenerateContent?alt=sse", json=BODY)
    chunks = sse_payloads(events.content)
    assert len(chunks) == 3
    assert chunks[-1] == {
        "error": {
            "code": 503,
            "message": "The model is overloaded. Please try again later.",
            "status": "UNAVAILABLE",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}],
        }
    }
    array = json.loads(http.post(f"{MODEL_PATH}:streamGenerateContent", json=BODY).content)
    assert len(array) == 3
    assert array[-1] == chunks[-1]


def test_bytes_are_the_same_on_another_server_with_the_same_seed() -> None:
    def run() -> list[bytes]:
        server = start_server(seed=77)
        try:
            with httpx.Client(base_url=server.url, headers={"x-goog-api-key": "k"}) as http:
                return [
                    http.post(f"{MODEL_PATH}:generateContent", json=BODY).content,
                    http.post(f"{MODEL_PATH}:streamGenerateContent?alt=sse", json=BODY).content,
                    http.post(f"{MODEL_PATH}:streamGenerateContent", json=BODY).content,
                ]
        finally:
            server.stop()

    first, second = run(), run()
    assert all(first)
    assert first == second


def test_the_key_in_the_query_names_the_namespace_and_is_never_journaled(
    server: BackgroundServer, api_key: str
) -> None:
    with httpx.Client(base_url=server.url) as http:
        answer = http.post(f"{MODEL_PATH}:generateContent", params={"key": api_key}, json=BODY)
        assert answer.status_code == 200
        journal = http.get("/__mockserver/calls", headers={"x-mockserver-session": api_key}).json()[
            "data"
        ]
    assert [entry["path"] for entry in journal] == [f"{MODEL_PATH}:generateContent"]
    assert journal[0]["api"] == "gemini"
    assert journal[0]["model"] == "gemini-2.0-flash"
    assert api_key not in json.dumps(journal)


def test_a_server_with_keys_refuses_a_wrong_one_googles_way() -> None:
    server = start_server(api_keys=["good-key"])
    try:
        with httpx.Client(base_url=server.url) as http:
            url = f"{MODEL_PATH}:generateContent"
            wrong = http.post(url, json=BODY, headers={"x-goog-api-key": "bad-key"})
            missing = http.post(url, json=BODY)
            good = http.post(url, json=BODY, params={"key": "good-key"})
    finally:
        server.stop()
    assert wrong.status_code == 400
    error = wrong.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["reason"] == "API_KEY_INVALID"
    assert missing.status_code == 403
    assert missing.json()["error"]["status"] == "PERMISSION_DENIED"
    assert good.status_code == 200


FLAGGED = """
name: unsafe
rules:
  - id: unsafe-input
    when: {last_user: {contains: attack}}
    reply: {text: "No.", moderation: {input: [violence]}}
  - id: unsafe-output
    when: {last_user: {contains: insult}}
    reply: {text: "You fool.", moderation: {output: [harassment]}}
"""


def _asking(text: str, **extra: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": text}]}], **extra}


def test_a_flagged_prompt_is_blocked_with_prompt_feedback(http: httpx.Client) -> None:
    use(http, FLAGGED)
    answer = http.post(f"{MODEL_PATH}:generateContent", json=_asking("attack plan"))
    assert answer.status_code == 200
    body = answer.json()
    assert "candidates" not in body
    assert body["promptFeedback"]["blockReason"] == "SAFETY"
    blocked = [r for r in body["promptFeedback"]["safetyRatings"] if r.get("blocked")]
    assert blocked == [
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
    ]
    output = http.post(f"{MODEL_PATH}:generateContent", json=_asking("an insult")).json()
    candidate = output["candidates"][0]
    assert candidate["finishReason"] == "SAFETY"
    assert "content" not in candidate
    off = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    allowed = http.post(
        f"{MODEL_PATH}:generateContent", json=_asking("an insult", safetySettings=off)
    ).json()
    assert allowed["candidates"][0]["content"]["parts"] == [{"text": "You fool."}]
    assert allowed["candidates"][0]["finishReason"] == "STOP"


def test_vertex_answers_carry_create_time(http: httpx.Client) -> None:
    path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash"
    body = http.post(f"{path}:generateContent", json=BODY).json()
    assert list(body) == [
        "candidates",
        "usageMetadata",
        "modelVersion",
        "createTime",
        "responseId",
    ]
    assert body["createTime"].endswith("Z")
    assert body["usageMetadata"]["trafficType"] == "ON_DEMAND"
    developer = http.post("/v1beta/models/gemini-2.5-flash:generateContent", json=BODY).json()
    assert "createTime" not in developer


def test_snake_case_fields_are_read_as_their_camel_case(http: httpx.Client) -> None:
    body = {**BODY, "generation_config": {"max_output_tokens": 3}}
    answer = http.post(f"{MODEL_PATH}:generateContent", json=body).json()
    assert answer["candidates"][0]["finishReason"] == "MAX_TOKENS"
    unknown = http.post(f"{MODEL_PATH}:generateContent", json={**BODY, "bogus": 1})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["message"] == (
        'Invalid JSON payload received. Unknown name "bogus": Cannot find field.'
    )


def test_an_unknown_method_is_googles_not_found(http: httpx.Client) -> None:
    answer = http.post(f"{MODEL_PATH}:frobnicate", json=BODY)
    assert answer.status_code == 404
    assert answer.json()["error"]["status"] == "NOT_FOUND"
