"""Scripted failures reach the official SDK exactly as real ones do (real sockets: in-process
ASGI clients would buffer whole bodies)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer

ASK: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Tell me a story"}],
}


def script(control: httpx.Client, **reply: Any) -> None:
    reply.setdefault("text", "One two three four five six seven eight nine ten.")
    assert control.post("/next", json=reply).status_code == 200


def raw_stream(server: BackgroundServer, api_key: str) -> bytes:
    with httpx.stream(
        "POST",
        f"{server.base_url}/chat/completions",
        json={**ASK, "stream": True},
        headers={"Authorization": f"Bearer {api_key}"},
    ) as response:
        return b"".join(response.iter_raw())


def test_disconnect_after_n_events_breaks_the_sdk_iterator(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, fault={"disconnect_after": 3})
    chunks = iter(client.chat.completions.create(**ASK, stream=True))
    first_three = [next(chunks) for _ in range(3)]
    assert first_three[0].choices[0].delta.role == "assistant"
    with pytest.raises((openai.APIConnectionError, httpx.RemoteProtocolError)):
        next(chunks)


def test_in_stream_error_is_raised_by_the_sdk(control: httpx.Client, client: openai.OpenAI) -> None:
    script(control, fault={"error_after": 2, "error": {"preset": "server_error"}})
    with pytest.raises(openai.APIError, match="The server had an error"):
        list(client.chat.completions.create(**ASK, stream=True))


def test_malformed_frame_fails_decoding(control: httpx.Client, client: openai.OpenAI) -> None:
    script(control, fault={"malformed_after": 1})
    with pytest.raises(json.JSONDecodeError):
        list(client.chat.completions.create(**ASK, stream=True))


def test_stall_ends_in_the_clients_timeout(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, fault={"stall_after": 2, "stall_for": 30})
    with (
        openai.OpenAI(
            base_url=server.base_url, api_key=api_key, max_retries=0, timeout=0.5
        ) as impatient,
        pytest.raises((openai.APITimeoutError, httpx.ReadTimeout)),
    ):
        list(impatient.chat.completions.create(**ASK, stream=True))


def test_stream_without_done(control: httpx.Client, server: BackgroundServer, api_key: str) -> None:
    script(control, fault={"no_done": True})
    raw = raw_stream(server, api_key)
    assert raw.startswith(b"data: {")
    assert b"[DONE]" not in raw


def test_keepalive_comments_while_waiting(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, latency={"ttft": 0.25}, fault={"keepalive": 0.1})
    raw = raw_stream(server, api_key)
    assert raw.startswith(b": keep-alive\n\n")
    assert raw.endswith(b"data: [DONE]\n\n")


def test_paced_stream_takes_its_time_and_keeps_its_bytes(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    unpaced = raw_stream(server, api_key)
    control.put("/scenario", json={"scenario": {"latency": {"ttft": 0.2, "chunk_interval": 0.01}}})
    started = time.monotonic()
    paced = raw_stream(server, api_key)
    assert time.monotonic() - started >= 0.2  # a lower bound: the ttft was waited
    assert paced.count(b"\n\ndata: ") == unpaced.count(b"\n\ndata: ")


def test_word_chunks_group_tokens(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, text="Internationalization matters.", latency={"chunk": "word"})
    frames = raw_stream(server, api_key).split(b"\n\n")
    contents = [
        json.loads(f[6:])["choices"][0]["delta"].get("content")
        for f in frames
        if f.startswith(b"data: {")
    ]
    assert contents[1:3] == ["Internationalization", " matters."]


def test_delay_longer_than_the_client_timeout(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, latency={"delay": 5})
    with (
        openai.OpenAI(
            base_url=server.base_url, api_key=api_key, max_retries=0, timeout=0.3
        ) as impatient,
        pytest.raises(openai.APITimeoutError),
    ):
        impatient.chat.completions.create(**ASK)


def test_connection_reset(control: httpx.Client, client: openai.OpenAI) -> None:
    script(control, fault={"reset": True})
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(**ASK)


def test_truncated_body(control: httpx.Client, server: BackgroundServer, api_key: str) -> None:
    script(control, fault={"truncate": 0.5})
    response = httpx.post(
        f"{server.base_url}/chat/completions",
        json=ASK,
        headers={"Authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()


def test_chaos_fails_the_same_requests_every_run(server: BackgroundServer) -> None:
    chaos = {
        "scenario": {
            "seed": 5,
            "chaos": {"probability": 0.5, "replies": [{"error": {"preset": "overloaded"}}]},
        }
    }

    def run(key: str) -> list[int]:
        headers = {"Authorization": f"Bearer {key}"}
        httpx.put(f"{server.url}/__mockserver/scenario", json=chaos, headers=headers)
        return [
            httpx.post(
                f"{server.base_url}/chat/completions", headers=headers, json={**ASK, "seed": n}
            ).status_code
            for n in range(12)
        ]

    first, second = run("sk-chaos-a"), run("sk-chaos-b")
    assert first == second
    assert set(first) == {200, 503}


def test_chaos_answers_in_place_of_a_rule_without_using_it_up(
    server: BackgroundServer, control: httpx.Client, api_key: str
) -> None:
    scenario = {
        "seed": 42,
        "chaos": {"probability": 0.5, "replies": [{"error": {"preset": "server_error"}}]},
        "rules": [
            {"id": "a", "replies": [{"text": f"x{n}"} for n in range(1, 7)], "after": "exhausted"}
        ],
    }
    control.put("/scenario", json={"scenario": scenario})
    headers = {"Authorization": f"Bearer {api_key}"}
    served = []
    while len([s for s in served if s != 500]) < 6:
        answer = httpx.post(f"{server.base_url}/chat/completions", headers=headers, json=ASK)
        served.append(
            answer.json()["choices"][0]["message"]["content"] if answer.is_success else 500
        )
    assert [s for s in served if s != 500] == [f"x{n}" for n in range(1, 7)]  # none skipped
    assert 500 in served
    calls = control.get("/calls").json()["data"]
    assert [c["rule"] for c in calls] == ["(chaos)" if s == 500 else "a" for s in served]
    rules = control.get("/scenario").json()["rules"]
    assert [(r["id"], r["hits"]) for r in rules] == [("a", 6)]


def test_rate_limit_budgets_on_a_virtual_clock(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    control.put("/scenario", json={"scenario": {"rate_limits": {"requests_per_minute": 2}}})
    first = client.chat.completions.with_raw_response.create(**ASK)
    assert first.headers["x-ratelimit-limit-requests"] == "2"
    assert first.headers["x-ratelimit-remaining-requests"] == "1"
    client.chat.completions.create(**ASK)
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(**ASK)
    assert info.value.response.headers["retry-after"] == "30"
    assert info.value.body["code"] == "rate_limit_exceeded"
    control.post("/clock", json={"advance": 30})
    assert client.chat.completions.create(**ASK).choices[0].message.content


def test_every_answer_carries_rate_limit_headers(client: openai.OpenAI) -> None:
    headers = client.chat.completions.with_raw_response.create(**ASK).headers
    assert int(headers["x-ratelimit-limit-requests"]) > 0
    assert headers["x-ratelimit-reset-tokens"].endswith("s")


@pytest.mark.parametrize("preset", ["rate_limited", "insufficient_quota"])
def test_a_scripted_429_says_where_the_budgets_stand(
    control: httpx.Client, client: openai.OpenAI, preset: str
) -> None:
    control.post("/next", json={"error": {"preset": preset, "retry_after": 2}})
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(**ASK)
    headers = info.value.response.headers
    assert int(headers["x-ratelimit-limit-requests"]) > 0
    assert int(headers["x-ratelimit-remaining-tokens"]) >= 0
    assert headers["x-ratelimit-reset-requests"].endswith("s")
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("2", "2000")
    control.post("/next", json={"error": {"preset": "overloaded"}})
    with pytest.raises(openai.InternalServerError) as busy:
        client.chat.completions.create(**ASK)
    assert "x-ratelimit-limit-requests" not in busy.value.response.headers


def test_an_error_given_only_its_status_says_what_that_status_means(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    control.post(
        "/next", json={"replies": [{"error": {"status": 429}}, {"error": {"status": 418}}]}
    )
    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(**ASK)
    assert limited.value.body["type"] == "rate_limit_error"  # type: ignore[index]
    assert limited.value.response.headers["retry-after"] == "1"
    with pytest.raises(openai.APIStatusError) as teapot:
        client.chat.completions.create(**ASK)
    assert teapot.value.status_code == 418
    assert teapot.value.body["type"] == "invalid_request_error"  # type: ignore[index]


@pytest.mark.parametrize(
    "fault",
    [{"error_after": 2, "error": {"preset": "server_error"}}, {"no_done": True}],
    ids=["error_after", "no_done"],
)
def test_the_journal_keeps_what_a_faulted_stream_sent(
    control: httpx.Client, server: BackgroundServer, api_key: str, fault: dict[str, Any]
) -> None:
    from mockserver.render.sse import decode_stream

    script(control, fault=fault)
    sent = raw_stream(server, api_key)
    [entry] = [c for c in control.get("/calls").json()["data"] if c["stream"]][-1:]
    assert entry["response"] == decode_stream(sent)
