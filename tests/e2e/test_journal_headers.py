"""The journal keeps each call's request and response headers: the response's exactly as the
client got them (whichever path answered: a turn, the replay lane, a refusal, a non-turn
endpoint; in memory or in Redis), the request's with every credential masked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.record.redact import MASK
from mockserver.scenario.loader import load_file
from tests.conftest import start_server
from tests.support.redis_server import RedisServer

KEY = "sk-journal-headers-0001"
#: Headers of the HTTP framing, which the journal does not keep (the answer's own it does).
FRAMING = {"content-type", "content-length", "transfer-encoding", "cache-control", "date", "server"}
SCENARIO = """
name: headers
fallback: generate
rules:
  - id: limited
    when: {last_user: {contains: limited}}
    reply: {error: {preset: rate_limited, retry_after: 2}}
  - id: busy
    when: {last_user: {contains: busy}}
    reply: {error: {preset: overloaded}}
"""


@pytest.fixture(params=["memory-lane", "memory-no-lane", "redis"])
def mock(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    scenario = tmp_path_factory.mktemp("headers") / "headers.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    options: dict[str, Any] = {"seed": 11, "scenario": str(scenario)}
    if request.param == "memory-no-lane":
        options["replay"] = False
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        options |= {"state_url": redis.url, "state_prefix": RedisServer.new_prefix()}
    server = start_server(**options)
    yield server
    server.stop()


@pytest.fixture
def client(mock: BackgroundServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=mock.base_url, api_key=KEY, max_retries=0) as sdk:
        yield sdk


def own(headers: httpx.Headers) -> dict[str, str]:
    """The headers an answer set itself: all but the framing's."""
    return {k: v for k, v in headers.items() if k not in FRAMING}


def journal(mock: BackgroundServer) -> list[dict[str, Any]]:
    found = httpx.get(
        mock.url + "/__mockserver/calls", headers={"authorization": f"Bearer {KEY}"}, timeout=5
    )
    found.raise_for_status()
    entries: list[dict[str, Any]] = found.json()["data"]
    return entries


def test_every_answer_is_journaled_with_the_headers_the_client_got(
    mock: BackgroundServer, client: openai.OpenAI
) -> None:
    messages: Any = [{"role": "user", "content": "hello"}]
    received = []
    for _ in range(3):  # the third is answered by the lane's recipe, where it is on
        made = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages
        )
        received.append(made.headers)
    streamed = client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=messages, stream=True
    )
    streamed.parse().close()
    received.append(streamed.headers)
    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "limited, please"}]
        )
    received.append(limited.value.response.headers)
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="gpt-4o-mini", messages=[])
    received.append(refused.value.response.headers)
    received.append(client.models.with_raw_response.list().headers)
    received.append(
        client.embeddings.with_raw_response.create(
            model="text-embedding-3-small", input="a"
        ).headers
    )
    made = client.responses.with_raw_response.create(model="gpt-4o-mini", input="hi")
    received.append(made.headers)
    received.append(client.responses.with_raw_response.retrieve(made.parse().id).headers)
    with pytest.raises(openai.NotFoundError) as missing:
        client.responses.retrieve("resp_nothing")
    received.append(missing.value.response.headers)
    lane = mock.app.state.replays
    assert lane.served == (0 if mock.app.state.settings.replay is False else 1)
    entries = journal(mock)
    assert [e["status"] for e in entries] == [200, 200, 200, 200, 429, 400, 200, 200, 200, 200, 404]
    for entry, headers in zip(entries, received, strict=True):
        assert entry["response_headers"] == own(headers), entry["path"]
        assert entry["request_headers"]["authorization"] == MASK
        assert entry["request_headers"]["user-agent"] == client.user_agent
    assert entries[4]["response_headers"]["retry-after"] == "2"
    assert entries[4]["response_headers"]["x-request-id"].startswith("req_")
    assert KEY not in json.dumps(entries)


def test_gemini_answers_are_journaled_with_google_s_headers_and_its_key_masked(
    mock: BackgroundServer,
) -> None:
    """Google's answers carry no request id nor rate limits: the journal keeps what was sent,
    and the key sent as ``x-goog-api-key`` masked."""
    model = "/v1beta/models/gemini-2.0-flash"
    hello = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
    with httpx.Client(base_url=mock.url, headers={"x-goog-api-key": KEY}, timeout=10) as http:
        received = [
            http.post(f"{model}:generateContent", json=hello),
            http.post(f"{model}:generateContent", json=hello),
            http.post(f"{model}:generateContent", json=hello),
            http.post(f"{model}:streamGenerateContent?alt=sse", json=hello),
            http.post(f"{model}:generateContent", json={"contents": []}),
            http.post(
                "/v1beta/models/text-embedding-004:embedContent",
                json={"content": {"parts": [{"text": "a"}]}},
            ),
        ]
    entries = journal(mock)
    assert [e["status"] for e in entries] == [r.status_code for r in received]
    assert [e["status"] for e in entries] == [200, 200, 200, 200, 400, 200]
    for entry, answer in zip(entries, received, strict=True):
        assert entry["response_headers"] == own(answer.headers), entry["path"]
        assert entry["request_headers"]["x-goog-api-key"] == MASK
    assert KEY not in json.dumps(entries)


def test_anthropic_answers_are_journaled_with_anthropic_s_headers_and_its_key_masked(
    mock: BackgroundServer,
) -> None:
    """Anthropic's answers carry ``request-id`` and ``anthropic-ratelimit-*`` (a refusal its
    ``x-should-retry``): the journal keeps what was sent, and the ``x-api-key`` masked."""
    hello = {
        "model": "claude-haiku-4-5",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "hello"}],
    }
    busy = {**hello, "messages": [{"role": "user", "content": "busy?"}]}
    sent = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    with httpx.Client(base_url=mock.url, headers=sent, timeout=10) as http:
        received = [
            http.post("/v1/messages", json=hello),
            http.post("/v1/messages", json=hello),
            http.post("/v1/messages", json=hello),  # from the lane's recipe, where it is on
            http.post("/v1/messages", json={**hello, "stream": True}),
            http.post("/v1/messages", json=busy),
            http.post("/v1/messages", json={"model": "claude-haiku-4-5", "messages": []}),
            http.post(
                "/v1/messages/count_tokens", json={"model": "m", "messages": hello["messages"]}
            ),
            http.get("/v1/models"),
            http.get("/v1/messages/nowhere"),
        ]
    entries = journal(mock)
    assert [e["status"] for e in entries] == [r.status_code for r in received]
    assert [e["status"] for e in entries] == [200, 200, 200, 200, 529, 400, 200, 200, 404]
    for entry, answer in zip(entries, received, strict=True):
        assert entry["response_headers"] == own(answer.headers), entry["path"]
        assert entry["request_headers"]["x-api-key"] == MASK
    assert entries[4]["response"] == received[4].json()
    assert entries[4]["response_headers"]["x-should-retry"] == "true"
    assert KEY not in json.dumps(entries)


def test_a_429_saved_as_a_rule_keeps_its_retry_after_and_rate_limits(
    mock: BackgroundServer, client: openai.OpenAI, tmp_path: Any
) -> None:
    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "limited, please"}]
        )
    sent = limited.value.response.headers
    saved = httpx.get(
        mock.url + "/__mockserver/calls/1/rule", headers={"authorization": f"Bearer {KEY}"}
    ).json()
    error = saved["rule"]["reply"]["error"]
    assert error["status"] == 429
    assert error["retry_after"] == 2
    assert error["headers"]["retry-after-ms"] == sent["retry-after-ms"]
    limits = {k: v for k, v in sent.items() if k.startswith("x-ratelimit-")}
    assert limits
    assert {k: v for k, v in error["headers"].items() if k.startswith("x-ratelimit-")} == limits
    file = tmp_path / "saved.yaml"
    file.write_text("name: saved\nrules:\n" + saved["yaml"], encoding="utf-8")
    load_file(file)
    again = start_server(seed=3, scenario=str(file))
    try:
        answered = httpx.post(
            again.base_url + "/chat/completions",
            json={
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": "limited, please"}],
            },
        )
    finally:
        again.stop()
    assert answered.status_code == 429
    assert answered.headers["retry-after"] == "2"


def test_a_key_is_masked_in_every_header_that_repeats_it(mock: BackgroundServer) -> None:
    httpx.post(
        mock.base_url + "/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
        headers={
            "authorization": f"Bearer {KEY}",
            "x-api-key": "another-secret-value",
            "x-echo": f"key={KEY}",
            "cookie": "session=abc123456789",
        },
    ).raise_for_status()
    [entry] = journal(mock)
    headers = entry["request_headers"]
    assert headers["authorization"] == headers["x-api-key"] == headers["cookie"] == MASK
    assert headers["x-echo"] == f"key={MASK}"
    assert "another-secret-value" not in json.dumps(entry)
    assert KEY not in json.dumps(entry)
