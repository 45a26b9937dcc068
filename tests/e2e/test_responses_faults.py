"""A scenario's stream faults and pacing reach Responses streams as they reach chat ones."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from tests.support.events import assert_well_formed

ASK: dict[str, Any] = {"model": "gpt-4o-mini", "input": "Tell me a story"}
TEXT = "One two three four five six seven eight nine ten."


def script(control: httpx.Client, **reply: Any) -> None:
    reply.setdefault("text", TEXT)
    assert control.post("/next", json=reply).status_code == 200


def raw_events(server: BackgroundServer, api_key: str) -> list[dict[str, Any]]:
    response = httpx.post(
        f"{server.base_url}/responses",
        json={**ASK, "stream": True},
        headers={"Authorization": f"Bearer {api_key}"},
    )
    frames = response.content.strip().split(b"\n\n")
    return [json.loads(frame.split(b"\ndata: ", 1)[1]) for frame in frames]


def test_scripted_text_streams_word_by_word(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, latency={"chunk": "word"})
    events = raw_events(server, api_key)
    final = assert_well_formed(events)
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert deltas == ["One", *(" " + word for word in TEXT.split()[1:])]
    assert final.output_text == TEXT


def test_error_after_n_events_sends_an_error_then_response_failed(
    control: httpx.Client, server: BackgroundServer, api_key: str
) -> None:
    script(control, fault={"error_after": 4, "error": {"preset": "overloaded"}})
    events = raw_events(server, api_key)
    assert len(events) == 6
    assert events[-2] == {
        "type": "error",
        "sequence_number": 4,
        "code": "server_is_overloaded",
        "message": events[-2]["message"],
        "param": None,
    }
    failed = events[-1]
    assert (failed["type"], failed["sequence_number"]) == ("response.failed", 5)
    assert failed["response"]["status"] == "failed"
    # a response's error code is one of the API's ResponseErrorCode values
    assert failed["response"]["error"]["code"] == "server_error"


@pytest.mark.parametrize(
    ("preset", "code"),
    [
        ("server_error", "server_error"),
        ("rate_limited", "rate_limit_exceeded"),
        ("bad_request", "invalid_prompt"),
        ("bad_gateway", "server_error"),
    ],
)
def test_a_failed_response_is_stored_as_it_ended(
    control: httpx.Client,
    server: BackgroundServer,
    api_key: str,
    client: openai.OpenAI,
    preset: str,
    code: str,
) -> None:
    """The stream said failed: retrieving it says so too, and nothing it never sent joins
    what a later response sees."""
    script(control, fault={"error_after": 4, "error": {"preset": preset}})
    events = raw_events(server, api_key)
    failed = events[-1]["response"]
    assert failed["error"]["code"] == code
    stored = client.responses.retrieve(failed["id"])
    assert (stored.status, stored.output, stored.usage) == ("failed", [], None)
    assert stored.error is not None
    assert (stored.error.code, stored.error.message) == (code, failed["error"]["message"])
    replayed = list(client.responses.retrieve(failed["id"], stream=True))
    assert [e.type for e in replayed] == [
        "response.created",
        "response.in_progress",
        "response.failed",
    ]
    assert [e.sequence_number for e in replayed] == [0, 1, 2]
    chained = client.responses.input_tokens.count(
        model="gpt-4o-mini", input="Go on", previous_response_id=failed["id"]
    )
    asked = [{"role": "user", "content": ASK["input"]}, {"role": "user", "content": "Go on"}]
    alone = client.responses.input_tokens.count(model="gpt-4o-mini", input=asked)
    assert chained.input_tokens == alone.input_tokens  # the story never told is not context


def test_a_failed_chat_stream_is_not_stored(control: httpx.Client, client: openai.OpenAI) -> None:
    script(control, fault={"error_after": 3})
    with pytest.raises(openai.APIError):
        for _ in client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            store=True,
        ):
            pass
    assert client.chat.completions.list().data == []


def test_the_sdk_stream_helper_sees_response_failed(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, fault={"error_after": 3})
    with client.responses.stream(**ASK) as stream:
        events = list(stream)
    kinds = [event.type for event in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "error",
        "response.failed",
    ]
    failed = events[-1]
    assert failed.type == "response.failed"
    assert failed.response.status == "failed"
    error = events[-2]
    assert error.type == "error"
    assert failed.response.error is not None
    assert error.code == failed.response.error.code == "server_error"  # the two agree
    assert failed.response.error is not None
    assert failed.response.error.code == "server_error"


def test_missing_terminal_event_fails_the_sdk_stream_helper(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, fault={"no_done": True})
    with client.responses.stream(**ASK) as stream:
        kinds = [event.type for event in stream]
        with pytest.raises(RuntimeError):
            stream.get_final_response()
    assert "response.completed" not in kinds
    assert kinds[-1] == "response.output_item.done"


def test_disconnect_breaks_the_sdk_iterator(control: httpx.Client, client: openai.OpenAI) -> None:
    script(control, fault={"disconnect_after": 3})
    events = iter(client.responses.create(**ASK, stream=True))
    assert [next(events).type for _ in range(3)] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
    ]
    with pytest.raises((httpx.HTTPError, openai.APIConnectionError)):
        next(events)


def test_scripted_http_error_reaches_responses_create(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    script(control, text=None, error={"preset": "rate_limited"})
    with pytest.raises(openai.RateLimitError):
        client.responses.create(**ASK)


def test_scripted_hosted_items_are_rendered(control: httpx.Client, client: openai.OpenAI) -> None:
    search = {"type": "web_search_call", "action": {"type": "search", "query": "news"}}
    script(control, hosted=[search])
    with client.responses.create(**ASK, stream=True) as stream:
        events = [event.to_dict() for event in stream]
    final = assert_well_formed(events)
    assert [item.type for item in final.output] == ["web_search_call", "message"]
    assert "response.web_search_call.searching" in [e["type"] for e in events]
