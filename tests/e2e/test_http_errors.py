"""Client mistakes get the real API's status and error body; nothing ever answers 5xx."""

from __future__ import annotations

import json
import re
import socket
import time
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings


@pytest.fixture(scope="module")
def client() -> httpx.Client:
    app = create_app(Settings(clock="frozen", max_body_bytes=4096))
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    import anyio

    # A sync facade over the in-process ASGI app (no socket needed for plain error bodies).
    class _Sync:
        def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
            async def go() -> httpx.Response:
                async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
                    return await c.request(method, url, **kw)

            return anyio.run(go)

    return _Sync()  # type: ignore[return-value]


def _error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) >= {"message", "type", "param", "code"}
    return body["error"]  # type: ignore[no-any-return]


def test_unknown_route_is_404_invalid_url(client: httpx.Client) -> None:
    response = client.request("POST", "/v1/nope")
    assert response.status_code == 404
    assert _error(response)["message"] == "Invalid URL (POST /v1/nope)"


def test_wrong_method_is_405(client: httpx.Client) -> None:
    response = client.request("PUT", "/v1/chat/completions")
    assert response.status_code == 405
    assert _error(response)["type"] == "invalid_request_error"


def test_malformed_json_is_400(client: httpx.Client) -> None:
    response = client.request(
        "POST",
        "/v1/chat/completions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert _error(response)["message"].startswith("We could not parse the JSON body")


def test_non_json_content_type_is_415(client: httpx.Client) -> None:
    response = client.request(
        "POST",
        "/v1/chat/completions",
        content=b"a=b",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415
    assert "Unsupported content type" in _error(response)["message"]


def test_oversized_body_is_413(client: httpx.Client) -> None:
    big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]})
    response = client.request(
        "POST", "/v1/chat/completions", content=big, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert _error(response)["code"] == "request_too_large"


@pytest.mark.parametrize(
    ("method", "path", "content_type"),
    [
        ("PUT", "/__mockserver/scenario", "application/yaml"),
        ("PUT", "/__mockserver/scenario", "application/json"),
        ("POST", "/__mockserver/next", "application/json"),
        ("POST", "/__mockserver/clock", "application/json"),
    ],
)
def test_oversized_control_body_is_413(
    client: httpx.Client, method: str, path: str, content_type: str
) -> None:
    big = json.dumps({"text": "x" * 5000})
    response = client.request(method, path, content=big, headers={"content-type": content_type})
    assert response.status_code == 413
    assert _error(response)["code"] == "request_too_large"


def test_missing_messages_names_the_param(client: httpx.Client) -> None:
    response = client.request("POST", "/v1/chat/completions", json={"model": "gpt-4o-mini"})
    assert response.status_code == 400
    error = _error(response)
    assert (error["param"], error["code"]) == ("messages", "missing_required_parameter")


def test_unknown_stored_completion_is_404(client: httpx.Client) -> None:
    response = client.request("GET", "/v1/chat/completions/chatcmpl-missing")
    assert response.status_code == 404
    assert "chatcmpl-missing" in _error(response)["message"]


def test_extra_top_level_fields_are_accepted(client: httpx.Client) -> None:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "gateway_trace": {"id": 1},
    }
    assert client.request("POST", "/v1/chat/completions", json=body).status_code == 200


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
fields = st.sampled_from(
    [
        "model",
        "messages",
        "tools",
        "tool_choice",
        "stop",
        "temperature",
        "top_p",
        "n",
        "stream",
        "stream_options",
        "logprobs",
        "top_logprobs",
        "response_format",
        "max_tokens",
        "seed",
        "metadata",
        "store",
        "moderation",
        "functions",
        "function_call",
        "parallel_tool_calls",
    ]
)
message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "system", "assistant", "tool", "developer", "x"]),
        "content": json_values,
    },
    optional={"tool_call_id": json_values, "tool_calls": json_values, "name": json_values},
)
bodies = st.fixed_dictionaries(
    {"model": st.just("gpt-4o-mini") | json_values, "messages": st.lists(message, max_size=3)},
) | st.dictionaries(fields, json_values, max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=bodies, extra=st.dictionaries(fields, json_values, max_size=3))
def test_random_bodies_never_cause_a_server_error(
    client: httpx.Client, body: dict[str, Any], extra: dict[str, Any]
) -> None:
    response = client.request("POST", "/v1/chat/completions", json={**body, **extra})
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        _error(response)


@settings(max_examples=100, deadline=None)
@given(raw=st.binary(max_size=64))
def test_random_bytes_never_cause_a_server_error(client: httpx.Client, raw: bytes) -> None:
    response = client.request(
        "POST", "/v1/chat/completions", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code in (200, 400)


item_types = st.sampled_from(
    [
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "item_reference",
        "compaction",
        "web_search_call",
        "mcp_call",
        "input_text",
        "nonsense",
    ]
)
items = st.fixed_dictionaries(
    {"type": item_types},
    optional={
        "role": st.sampled_from(["user", "assistant", "system", "developer", "x"]),
        "content": json_values,
        "call_id": json_values,
        "output": json_values,
        "name": json_values,
        "arguments": json_values,
        "id": json_values,
        "summary": json_values,
        "status": json_values,
    },
)
response_fields = st.sampled_from(
    [
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "text",
        "reasoning",
        "include",
        "stream",
        "store",
        "background",
        "max_output_tokens",
        "previous_response_id",
        "conversation",
        "metadata",
        "temperature",
        "top_logprobs",
        "truncation",
        "prompt",
    ]
)
response_bodies = st.fixed_dictionaries(
    {
        "model": st.just("gpt-4o-mini") | json_values,
        "input": st.text(max_size=10) | st.lists(items, max_size=4) | json_values,
    },
) | st.dictionaries(response_fields, json_values, max_size=6)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=response_bodies, extra=st.dictionaries(response_fields, json_values, max_size=3))
def test_random_responses_bodies_never_cause_a_server_error(
    client: httpx.Client, body: dict[str, Any], extra: dict[str, Any]
) -> None:
    response = client.request("POST", "/v1/responses", json={**body, **extra})
    assert response.status_code in (200, 400, 404), response.text
    if response.status_code != 200:
        _error(response)


@settings(max_examples=100, deadline=None)
@given(
    body=st.dictionaries(st.sampled_from(["items", "metadata", "input"]), json_values, max_size=3)
)
def test_random_conversation_bodies_never_cause_a_server_error(
    client: httpx.Client, body: dict[str, Any]
) -> None:
    response = client.request("POST", "/v1/conversations", json=body)
    assert response.status_code in (200, 400, 404), response.text


def test_a_websocket_upgrade_where_no_socket_is_served_is_an_unknown_route(
    server: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The Realtime API is out of scope: an upgrade request there is answered as plain HTTP,
    with the 404 of any unknown route, and nothing about WebSocket libraries is logged."""
    handshake = (
        b"GET /v1/realtime HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(handshake)
        answer = b""
        while b"}\n}" not in answer:
            data = sock.recv(4096)
            assert data, answer
            answer += data
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 ")
    assert json.loads(body)["error"]["message"] == "Invalid URL (GET /v1/realtime)"
    assert not [r for r in caplog.records if "WebSocket" in r.getMessage()]


def test_a_client_that_leaves_mid_body_is_no_internal_error(
    server: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    for path in ("/v1/moderations", "/v1/conversations", "/__mockserver/next"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(
                f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                'Content-Length: 80\r\n\r\n{"input": "hi'.encode()
            )
    time.sleep(0.2)  # the server reads each end of stream
    assert httpx.get(server.url + "/__mockserver/health").status_code == 200  # it went on
    assert server.app.state.engine.internal_error_count == 0
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


@pytest.mark.parametrize("origin", ["http://[", "http://[zz]", "http://[::1"])
def test_an_origin_that_is_no_url_is_refused_not_a_crash(
    server: BackgroundServer, origin: str
) -> None:
    assert httpx.get(server.base_url + "/models", headers={"Origin": origin}).status_code == 200
    control = httpx.get(server.url + "/__mockserver/health", headers={"Origin": origin})
    assert control.status_code == 403


def test_a_body_nested_too_deep_to_write_back_is_refused_and_the_journal_stays_readable(
    server: BackgroundServer,
) -> None:
    headers = {"content-type": "application/json", "authorization": "Bearer sk-deep-body"}
    deep = "[" * 300 + "]" * 300
    body = '{"model": "m", "messages": [{"role": "user", "content": "hi"}], "x": ' + deep + "}"
    answer = httpx.post(server.base_url + "/chat/completions", content=body, headers=headers)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("We could not parse the JSON body")
    calls = httpx.get(server.url + "/__mockserver/calls", headers=headers)
    assert calls.status_code == 200
    assert [c["status"] for c in calls.json()["data"]] == [400]


@pytest.mark.parametrize("replay", [True, False])
def test_a_bug_of_ours_answers_500_and_keeps_the_connection(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, replay: bool
) -> None:
    """A request the client had already sent behind the one that hit a bug is still answered."""
    from tests.conftest import start_server

    server = start_server(seed=1, replay=replay)
    try:
        engine = server.app.state.engine
        real_turn = engine.turn
        calls: list[int] = []

        def turn_once_broken(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("kaboom")
            return real_turn(*args, **kwargs)

        monkeypatch.setattr(engine, "turn", turn_once_broken)
        body = b'{"model":"m","messages":[{"role":"user","content":"hi"}]}'
        one = (
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer sk-bug\r\nContent-Length: %d\r\n\r\n%b" % (len(body), body)
        )
        answer = b""
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(one + one)  # pipelined: the second waits behind the first
            while answer.count(b"HTTP/1.1 ") < 2 or not answer.endswith(b"}"):
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", answer) == [b"500", b"200"], answer[:300]
        assert len(engine.internal_errors) == 1
        assert "RuntimeError: kaboom" in engine.internal_errors[0]
    finally:
        server.stop()
