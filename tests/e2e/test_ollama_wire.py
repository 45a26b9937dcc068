"""Ollama's wire, line by line with httpx: the NDJSON framing, its errors (whole and
mid-stream), scenario faults and pacing, the namespace, and the errors the ``ollama`` client
raises."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import ollama
import orjson
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.scenarios import use_scenario

MODEL = "llama3.2"
CHAT = {"model": MODEL, "messages": [{"role": "user", "content": "Hello <there> & you"}]}


def chat_of(text: str, **extra: object) -> dict[str, object]:
    return {"model": MODEL, "messages": [{"role": "user", "content": text}], **extra}


@pytest.fixture
def http(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {api_key}"}, timeout=10
    ) as client:
        yield client


def _lines(body: bytes) -> list[dict[str, object]]:
    assert body.endswith(b"\n")
    lines = body.split(b"\n")[:-1]
    assert lines, body
    return [orjson.loads(line) for line in lines]


def test_a_chat_streams_by_default_one_object_a_line(http: httpx.Client) -> None:
    answer = http.post("/api/chat", json=CHAT)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/x-ndjson"
    assert "content-length" not in answer.headers
    objects = _lines(answer.content)
    *said, last = objects
    assert said
    for value in said:
        assert list(value) == ["model", "created_at", "message", "done"]
        assert value["done"] is False
        assert list(value["message"]) == ["role", "content"]  # type: ignore[arg-type]
    assert list(last) == [
        "model",
        "created_at",
        "message",
        "done",
        "done_reason",
        "total_duration",
        "load_duration",
        "prompt_eval_count",
        "prompt_eval_duration",
        "eval_count",
        "eval_duration",
    ]
    assert last["done"] is True
    assert last["done_reason"] == "stop"
    assert last["message"] == {"role": "assistant", "content": ""}
    assert last["eval_count"] == len(said)


def test_the_journal_keeps_a_streams_lines(http: httpx.Client) -> None:
    answer = http.post("/api/chat", json=CHAT)
    sent = _lines(answer.content)
    [entry] = http.get("/__mockserver/calls").json()["data"][-1:]
    kept = http.get(f"/__mockserver/calls/{entry['seq']}").json()
    assert kept["stream"] is True
    assert kept["response"] == sent  # each line, as sent (the inspector reads them)


def test_lines_are_written_as_gos_encoder_writes_them(http: httpx.Client, control: object) -> None:
    use_scenario(control, "rules:\n  - reply: {text: 'a <b> & c'}\n")  # type: ignore[arg-type]
    answer = http.post("/api/chat", json={**CHAT, "stream": False})
    assert b"\\u003cb\\u003e \\u0026 c" in answer.content
    assert json.loads(answer.content)["message"]["content"] == "a <b> & c"
    assert b": " not in answer.content
    assert b"\n" not in answer.content


def test_the_same_requests_give_the_same_bytes(server: BackgroundServer, api_key: str) -> None:
    def run(key: str) -> list[bytes]:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {key}"}
        ) as client:
            return [
                client.post("/api/chat", json=CHAT).content,
                client.post("/api/generate", json={"model": MODEL, "prompt": "x"}).content,
            ]

    assert run(api_key + "-1") == run(api_key + "-1-again")


@pytest.mark.parametrize("path", ["/api/chat", "/api/generate", "/api/show", "/api/embed"])
def test_a_body_is_read_as_json_whatever_its_content_type(http: httpx.Client, path: str) -> None:
    """Ollama's server reads every body as JSON (Go's ``ShouldBindJSON``), as its docs'
    ``curl URL -d '{…}'`` examples, sent as a form, rely on; a new request and its repeat
    (the replay lane's) alike."""
    body = {
        "/api/chat": {**CHAT, "stream": False},
        "/api/generate": {"model": MODEL, "prompt": "Why is the sky blue?", "stream": False},
        "/api/show": {"model": MODEL},
        "/api/embed": {"model": "all-minilm", "input": "Why is the sky blue?"},
    }[path]
    as_json = http.post(path, json=body)
    assert as_json.status_code == 200, as_json.text
    for _ in range(2):
        as_form = http.post(
            path,
            content=json.dumps(body),
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert as_form.status_code == 200, as_form.text
        assert as_form.headers["content-type"] == as_json.headers["content-type"]
        assert set(as_form.json()) == set(as_json.json())
    refused = http.post(
        "/v1/chat/completions",
        content=json.dumps(CHAT),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 415  # OpenAI's API, on the same server, refuses it


def test_generate_lines_and_its_context(http: httpx.Client) -> None:
    objects = _lines(http.post("/api/generate", json={"model": MODEL, "prompt": "Hi"}).content)
    *said, last = objects
    assert said
    assert all(list(v) == ["model", "created_at", "response", "done"] for v in said)
    assert list(last)[:6] == ["model", "created_at", "response", "done", "done_reason", "context"]
    raw = http.post(
        "/api/generate", json={"model": MODEL, "prompt": "Hi", "raw": True, "stream": False}
    )
    assert "context" not in raw.json()


def test_version_and_an_unknown_path(http: httpx.Client) -> None:
    assert http.get("/api/version").json() == {"version": "0.13.0"}
    missing = http.get("/api/nothing")
    assert missing.status_code == 404
    assert missing.json() == {"error": "404 page not found"}


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        (b"{bad", 400, "invalid character 'b' looking for beginning of value"),
        (b"", 400, "missing request body"),
        (b'{"messages": []}', 400, "model is required"),
        (b'{"model": "llama3.2", "messages": "hi"}', 400, "json: cannot unmarshal string"),
        (b'{"model": "nope:7b", "messages": []}', 404, "model 'nope:7b' not found"),
        (b'{"model": "llama3.2", "think": "lots"}', 400, 'invalid think value: "lots"'),
    ],
)
def test_bad_requests_get_ollamas_error(
    http: httpx.Client, body: bytes, status: int, error: str
) -> None:
    answer = http.post("/api/chat", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == status
    assert list(answer.json()) == ["error"]
    assert answer.json()["error"].startswith(error)


@pytest.mark.parametrize(
    ("preset", "status", "error"),
    [
        ("rate_limited", 429, "rate limit exceeded"),
        ("overloaded", 503, "server busy, please try again.  maximum pending requests exceeded"),
        ("model_not_found", 404, "model 'llama3.2' not found"),
        ("server_error", 500, "an error was encountered while running the model"),
    ],
)
def test_presets_raise_response_error_with_ollamas_status(
    llama: ollama.Client, control: object, preset: str, status: int, error: str
) -> None:
    use_scenario(control, f"rules:\n  - reply: {{error: {{preset: {preset}}}}}\n")  # type: ignore[arg-type]
    for stream in (False, True):
        with pytest.raises(ollama.ResponseError) as raised:
            list(llama.chat(model=MODEL, messages=[], stream=True)) if stream else llama.chat(
                model=MODEL, messages=[{"role": "user", "content": "x"}]
            )
        assert raised.value.status_code == status
        assert raised.value.error == error


def test_an_unknown_model_raises_404(llama: ollama.Client) -> None:
    with pytest.raises(ollama.ResponseError) as raised:
        llama.generate(model="mistery-model", prompt="x")
    assert raised.value.status_code == 404
    assert raised.value.error == "model 'mistery-model' not found"
    with pytest.raises(ollama.ResponseError) as shown:
        llama.show("mistery-model")
    assert shown.value.status_code == 404
    with pytest.raises(ollama.ResponseError):
        llama.embed(model="mistery-model", input="x")


def test_a_mid_stream_error_is_the_last_line(
    http: httpx.Client, llama: ollama.Client, control: object
) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        "rules:\n  - reply: {text: 'one two three four five six', fault: {error_after: 2}}\n",
    )
    answer = http.post("/api/chat", json=CHAT)
    assert answer.status_code == 200
    objects = _lines(answer.content)
    assert len(objects) == 3
    assert objects[-1] == {"error": "an error was encountered while running the model"}
    with pytest.raises(ollama.ResponseError) as raised:
        list(llama.chat(model=MODEL, messages=CHAT["messages"], stream=True))  # type: ignore[arg-type]
    assert raised.value.error == "an error was encountered while running the model"


def test_no_done_leaves_out_the_last_line(http: httpx.Client, control: object) -> None:
    use_scenario(control, "rules:\n  - reply: {text: 'one two three', fault: {no_done: true}}\n")  # type: ignore[arg-type]
    objects = _lines(http.post("/api/chat", json=CHAT).content)
    assert objects
    assert all(value["done"] is False for value in objects)


def test_a_disconnect_cuts_the_stream(http: httpx.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        "rules:\n  - reply: {text: 'one two three four', fault: {disconnect_after: 2}}\n",
    )
    with pytest.raises(httpx.RemoteProtocolError):
        http.post("/api/chat", json=CHAT)


def test_a_malformed_line_is_not_json(http: httpx.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        "rules:\n  - reply: {text: 'one two three four', fault: {malformed_after: 1}}\n",
    )
    lines = http.post("/api/chat", json=CHAT).content.split(b"\n")
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(lines[1])


def test_a_stream_is_paced_by_its_latency(http: httpx.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        "rules:\n  - reply: {text: 'one two three four five', "
        "latency: {ttft: 0.2, chunk_interval: 0.05}}\n",
    )
    started = time.monotonic()
    arrivals = []
    with http.stream("POST", "/api/chat", json=CHAT) as answer:
        for line in answer.iter_lines():
            if line:
                arrivals.append(time.monotonic() - started)
    assert len(arrivals) >= 5
    assert arrivals[0] >= 0.2
    assert arrivals[-1] - arrivals[0] >= 0.15


def test_the_namespace_is_the_bearer_or_the_session_header(
    server: BackgroundServer, api_key: str, control: object
) -> None:
    use_scenario(control, "rules:\n  - reply: {text: mine}\n")  # type: ignore[arg-type]
    body = {**CHAT, "stream": False}
    by_key = httpx.post(
        server.url + "/api/chat", json=body, headers={"Authorization": f"Bearer {api_key}"}
    )
    by_session = httpx.post(
        server.url + "/api/chat", json=body, headers={"x-mockserver-session": api_key}
    )
    default = httpx.post(server.url + "/api/chat", json=body)
    assert by_key.json()["message"]["content"] == "mine"
    assert by_session.json()["message"]["content"] == "mine"
    assert default.json()["message"]["content"] != "mine"


def test_a_rule_can_select_ollamas_apis(http: httpx.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        """
rules:
  - when: {api: ollama_generate}
    reply: {text: generated}
  - when: {api: ollama_chat, last_user: {contains: Hello}}
    reply: {text: chatted}
  - when: {provider: ollama}
    reply: {text: "Ollama's"}
""",
    )
    assert http.post("/api/chat", json=chat_of("Hi", stream=False)).json()["message"] == {
        "role": "assistant",
        "content": "Ollama's",
    }
    chat = http.post("/api/chat", json={**CHAT, "stream": False}).json()
    generated = http.post(
        "/api/generate", json={"model": MODEL, "prompt": "x", "stream": False}
    ).json()
    assert chat["message"]["content"] == "chatted"
    assert generated["response"] == "generated"


def test_a_stall_holds_the_stream_between_two_lines(http: httpx.Client, control: object) -> None:
    use_scenario(
        control,  # type: ignore[arg-type]
        "rules:\n  - reply: {text: 'one two three', fault: {stall_after: 1, stall_for: 0.3}}\n",
    )
    started = time.monotonic()
    arrivals = []
    with http.stream("POST", "/api/chat", json=CHAT) as answer:
        for line in answer.iter_lines():
            if line:
                arrivals.append((time.monotonic() - started, orjson.loads(line)))
    assert len(arrivals) >= 3
    assert arrivals[1][0] - arrivals[0][0] >= 0.25
    assert arrivals[-1][1]["done"] is True
