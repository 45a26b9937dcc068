"""Raw bytes of the Responses API, as a non-SDK client sees them; determinism; HTTP errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server
from tests.support.events import assert_well_formed

BODY: dict[str, Any] = {"model": "gpt-4o-mini", "input": "Say hello", "stream": True}
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}

IMPOSSIBLE = {
    "type": "json_schema",
    "name": "impossible",
    "schema": {"type": "integer", "minimum": 5, "maximum": 1},
}


def _post(
    server: BackgroundServer, api_key: str, body: dict[str, Any], path: str = "/responses"
) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}{path}", json=body, headers={"Authorization": f"Bearer {api_key}"}
    )


def _frames(raw: bytes) -> list[bytes]:
    assert raw.endswith(b"\n\n")
    return raw[:-2].split(b"\n\n")


def test_stream_is_event_and_data_line_pairs(server: BackgroundServer, api_key: str) -> None:
    response = _post(server, api_key, BODY)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["x-request-id"].startswith("req_")
    events = []
    for frame in _frames(response.content):
        event_line, data_line = frame.split(b"\n")
        assert event_line.startswith(b"event: ")
        assert data_line.startswith(b"data: {")
        payload = data_line[len(b"data: ") :]
        event = json.loads(payload)
        assert event_line[len(b"event: ") :].decode() == event["type"]
        assert payload == json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
        assert list(event)[:2] == ["type", "sequence_number"]
        events.append(event)
    assert_well_formed(events)
    assert b"[DONE]" not in response.content


def test_deltas_are_obfuscated_unless_turned_off(server: BackgroundServer, api_key: str) -> None:
    def deltas(body: dict[str, Any]) -> list[dict[str, Any]]:
        frames = _frames(_post(server, api_key, body).content)
        events = [json.loads(f.split(b"\n")[1][6:]) for f in frames]
        return [e for e in events if e["type"].endswith(".delta")]

    on = deltas(BODY)
    assert on
    assert all("obfuscation" in e for e in on)
    off = deltas({**BODY, "stream_options": {"include_obfuscation": False}})
    assert off
    assert all("obfuscation" not in e for e in off)


def test_non_streamed_body_is_indented_json(server: BackgroundServer, api_key: str) -> None:
    response = _post(server, api_key, {**BODY, "stream": False})
    assert response.headers["content-type"] == "application/json"
    assert response.content.startswith(b'{\n  "id": "resp_')
    assert response.json()["object"] == "response"


@pytest.mark.parametrize(
    ("body", "status", "param"),
    [
        ({"input": "x"}, 400, "model"),
        ({"model": "m", "input": 3}, 400, "input"),
        ({"model": "m", "input": [{"type": "nope"}]}, 400, "input[0].type"),
        ({"model": "m", "input": "x", "previous_response_id": "r", "conversation": "c"}, 400, None),
        (
            {"model": "m", "input": "x", "previous_response_id": "resp_x"},
            400,
            "previous_response_id",
        ),
        ({"model": "m", "input": "x", "conversation": "conv_x"}, 404, "conversation"),
        ({"model": "m", "input": "x", "text": {"format": IMPOSSIBLE}}, 400, "text.format"),
    ],
)
def test_bad_requests_get_openai_shaped_errors(
    server: BackgroundServer, api_key: str, body: dict[str, Any], status: int, param: str | None
) -> None:
    response = _post(server, api_key, body)
    assert response.status_code == status
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param


def test_unknown_response_ids_are_404s(server: BackgroundServer, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    for method, path in [
        ("GET", "/responses/resp_missing"),
        ("DELETE", "/responses/resp_missing"),
        ("POST", "/responses/resp_missing/cancel"),
        ("GET", "/responses/resp_missing/input_items"),
        ("GET", "/conversations/conv_missing"),
    ]:
        response = httpx.request(method, f"{server.base_url}{path}", headers=headers)
        assert response.status_code == 404, path
        assert "not found" in response.json()["error"]["message"]


def test_responses_are_isolated_per_namespace(server: BackgroundServer, api_key: str) -> None:
    created = _post(server, api_key, {**BODY, "stream": False}).json()
    other = httpx.get(
        f"{server.base_url}/responses/{created['id']}",
        headers={"Authorization": f"Bearer {api_key}-other"},
    )
    assert other.status_code == 404


def test_store_limit_evicts_the_oldest_response() -> None:
    server = start_server(store_limit=2)
    try:
        headers = {"Authorization": "Bearer sk-evict"}
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            ids = [
                client.post("/responses", json={"model": "m", "input": f"n{n}"}).json()["id"]
                for n in range(3)
            ]
            assert client.get(f"/responses/{ids[0]}").status_code == 404
            assert client.get(f"/responses/{ids[2]}").status_code == 200
    finally:
        server.stop()


def _run(seed: int) -> list[bytes]:
    server = start_server(seed=seed)
    try:
        headers = {"Authorization": "Bearer sk-determinism"}
        with httpx.Client(base_url=server.base_url, headers=headers) as client:
            out = []
            first = client.post(
                "/responses", json={"model": "m", "input": "Weather?", "tools": [WEATHER]}
            )
            out.append(first.content)
            call = first.json()["output"][0]
            chained = {
                "model": "m",
                "previous_response_id": first.json()["id"],
                "input": [
                    {"type": "function_call_output", "call_id": call["call_id"], "output": "21"}
                ],
                "stream": True,
                "include": ["message.output_text.logprobs"],
                "top_logprobs": 2,
            }
            out.append(client.post("/responses", json=chained).content)
            background = client.post(
                "/responses", json={**BODY, "stream": False, "background": True}
            )
            out.append(background.content)
            for _ in range(2):
                out.append(client.get(f"/responses/{background.json()['id']}").content)
            conversation = client.post(
                "/conversations", json={"items": [{"role": "user", "content": "Hi"}]}
            )
            out.append(conversation.content)
            in_conversation = {**BODY, "conversation": conversation.json()["id"]}
            out.append(client.post("/responses", json=in_conversation).content)
            out.append(
                client.post("/responses/compact", json={"model": "m", "input": "Hi"}).content
            )
            return out
    finally:
        server.stop()


def test_two_servers_with_the_same_seed_answer_identical_bytes() -> None:
    assert _run(seed=7) == _run(seed=7)


def test_a_different_seed_changes_the_content() -> None:
    assert _run(seed=7)[0] != _run(seed=8)[0]


@pytest.mark.parametrize("path", ["/responses/compact", "/responses/input_tokens"])
@pytest.mark.parametrize(
    "extra",
    [{"metadata": [None]}, {"top_logprobs": "low"}, {"include": 5}, {"tools": [5]}],
    ids=["metadata", "top_logprobs", "include", "tools"],
)
def test_fields_these_endpoints_ignore_never_crash_them(
    server: BackgroundServer, path: str, extra: dict[str, Any]
) -> None:
    answer = httpx.post(
        server.base_url + path, json={"model": "gpt-4o-mini", "input": "hi", **extra}
    )
    assert answer.status_code < 500, answer.text
