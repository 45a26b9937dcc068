"""Background responses: what they show, stream and leave behind as they run, finish or stop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.render import sse
from mockserver.render.responses import item_id
from tests.support.events import assert_well_formed

MODEL = "gpt-4o-mini"


@pytest.fixture
def http(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    """Raw HTTP in the test's namespace (the SSE bytes as sent)."""
    headers = {"Authorization": f"Bearer {api_key}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as raw:
        yield raw


def _stream(http: httpx.Client, response_id: str, **params: str) -> list[dict[str, Any]]:
    answer = http.get(f"/responses/{response_id}", params={"stream": "true", **params})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    events: list[dict[str, Any]] = sse.decode_stream(answer.content)
    return events


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def _item_ids(client: openai.OpenAI, conversation_id: str) -> list[str]:
    return [str(item.id) for item in client.conversations.items.list(conversation_id, order="asc")]


def test_background_response_joins_its_conversation_when_it_completes(
    client: openai.OpenAI,
) -> None:
    conversation = client.conversations.create(items=[{"role": "user", "content": "Before"}])
    before = _item_ids(client, conversation.id)
    created = client.responses.create(
        model=MODEL, input="Hi", background=True, conversation=conversation.id
    )
    assert created.status == "queued"
    assert _item_ids(client, conversation.id) == before
    assert client.responses.retrieve(created.id).status == "in_progress"
    assert _item_ids(client, conversation.id) == before
    done = client.responses.retrieve(created.id)
    assert done.status == "completed"
    inputs = [item.id for item in client.responses.input_items.list(created.id, order="asc")]
    assert _item_ids(client, conversation.id) == [*before, *inputs, done.output[0].id]
    client.responses.retrieve(created.id)  # looking again adds nothing more
    assert _item_ids(client, conversation.id) == [*before, *inputs, done.output[0].id]


def test_next_turn_of_a_conversation_sees_a_completed_background_answer(
    client: openai.OpenAI,
) -> None:
    conversation = client.conversations.create()
    created = client.responses.create(
        model=MODEL, input="Hi", background=True, conversation=conversation.id
    )
    early = client.responses.create(model=MODEL, input="Again", conversation=conversation.id)
    client.responses.retrieve(created.id)
    client.responses.retrieve(created.id)
    late = client.responses.create(model=MODEL, input="Again", conversation=conversation.id)
    assert early.usage is not None
    assert late.usage is not None
    assert late.usage.input_tokens > early.usage.input_tokens


@pytest.mark.parametrize("polls", [0, 1])
def test_cancelled_background_response_adds_nothing_to_its_conversation(
    client: openai.OpenAI, polls: int
) -> None:
    conversation = client.conversations.create(items=[{"role": "user", "content": "Before"}])
    before = _item_ids(client, conversation.id)
    created = client.responses.create(
        model=MODEL, input="Hi", background=True, conversation=conversation.id
    )
    for _ in range(polls):
        client.responses.retrieve(created.id)
    assert client.responses.cancel(created.id).status == "cancelled"
    assert client.responses.retrieve(created.id).status == "cancelled"
    assert _item_ids(client, conversation.id) == before


def test_streamed_retrieve_completes_the_response_like_the_last_poll(
    client: openai.OpenAI, http: httpx.Client
) -> None:
    """The stream of a running response stays open until it ends (as the real one does), so
    it ends in ``response.completed`` and every look after it agrees."""
    conversation = client.conversations.create()
    created = client.responses.create(
        model=MODEL, input="Hi", background=True, conversation=conversation.id
    )
    assert client.responses.retrieve(created.id).status == "in_progress"
    events = _stream(http, created.id)
    final = assert_well_formed(events)
    after = client.responses.retrieve(created.id)
    assert after.status == final.status == "completed"
    assert after.to_dict() == final.to_dict()
    assert _item_ids(client, conversation.id)[-1] == after.output[0].id
    assert _stream(http, created.id) == events


@pytest.mark.parametrize(
    ("polls", "sent"),
    [
        (0, ["response.created", "response.queued"]),
        (1, ["response.created", "response.queued", "response.in_progress"]),
    ],
)
def test_stream_of_a_cancelled_response_ends_where_it_stopped(
    client: openai.OpenAI, http: httpx.Client, polls: int, sent: list[str]
) -> None:
    created = client.responses.create(model=MODEL, input="Hi", background=True)
    for _ in range(polls):
        client.responses.retrieve(created.id)
    client.responses.cancel(created.id)
    events = _stream(http, created.id)
    assert _types(events) == sent
    assert [e["sequence_number"] for e in events] == list(range(len(sent)))
    assert all(e["response"]["output"] == [] for e in events)
    with client.responses.retrieve(created.id, stream=True) as stream:
        assert [event.type for event in stream] == sent
    assert _types(_stream(http, created.id, starting_after="0")) == sent[1:]
    assert client.responses.retrieve(created.id).status == "cancelled"


def test_continuing_a_cancelled_response_sees_its_input_but_no_output(
    client: openai.OpenAI,
) -> None:
    cancelled = client.responses.create(model=MODEL, input="Hi", background=True)
    client.responses.retrieve(cancelled.id)
    client.responses.cancel(cancelled.id)
    chained = client.responses.create(model=MODEL, input="Again", previous_response_id=cancelled.id)
    both = [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Again"}]
    counted = client.responses.input_tokens.count(model=MODEL, input=both)  # type: ignore[arg-type]
    assert chained.usage is not None
    assert chained.usage.input_tokens == counted.input_tokens
    never_sent = item_id(cancelled.id, "msg_", 0)
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model=MODEL, input=[{"type": "item_reference", "id": never_sent}])


def test_continuing_a_completed_background_response_sees_its_output(
    client: openai.OpenAI,
) -> None:
    created = client.responses.create(model=MODEL, input="Hi", background=True)
    client.responses.retrieve(created.id)
    done = client.responses.retrieve(created.id)
    chained = client.responses.create(model=MODEL, input="Again", previous_response_id=done.id)
    both = [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Again"}]
    counted = client.responses.input_tokens.count(model=MODEL, input=both)  # type: ignore[arg-type]
    assert chained.usage is not None
    assert chained.usage.input_tokens > counted.input_tokens
    referenced = client.responses.create(
        model=MODEL, input=[{"type": "item_reference", "id": str(done.output[0].id)}]
    )
    assert referenced.status == "completed"


@pytest.mark.parametrize("background", [False, True])
def test_streamed_retrieve_leaves_obfuscation_out_when_asked(
    client: openai.OpenAI, http: httpx.Client, background: bool
) -> None:
    created = client.responses.create(model=MODEL, input="Hi", background=background)
    deltas = [e for e in _stream(http, created.id) if e["type"].endswith(".delta")]
    assert deltas
    assert all("obfuscation" in e for e in deltas)
    off = _stream(http, created.id, include_obfuscation="false")
    assert off
    assert not any("obfuscation" in e for e in off)
    with client.responses.retrieve(created.id, stream=True, include_obfuscation=False) as stream:
        assert not any("obfuscation" in event.to_dict() for event in stream)
    on = _stream(http, created.id, include_obfuscation="true")
    assert [e for e in on if e["type"].endswith(".delta")] == deltas


def test_streamed_retrieve_obfuscates_even_when_the_create_did_not(
    client: openai.OpenAI, http: httpx.Client
) -> None:
    """``include_obfuscation`` of a retrieve is its own parameter, on by default."""
    with client.responses.create(
        model=MODEL, input="Hi", stream=True, stream_options={"include_obfuscation": False}
    ) as stream:
        response_id = next(iter(stream)).response.id  # type: ignore[union-attr]
    deltas = [e for e in _stream(http, response_id) if e["type"].endswith(".delta")]
    assert deltas
    assert all("obfuscation" in e for e in deltas)


def test_streamed_retrieve_with_a_non_boolean_include_obfuscation_is_a_400(
    client: openai.OpenAI, http: httpx.Client
) -> None:
    created = client.responses.create(model=MODEL, input="Hi")
    answer = http.get(
        f"/responses/{created.id}", params={"stream": "true", "include_obfuscation": "maybe"}
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == "include_obfuscation"


def test_a_background_response_is_forgotten_after_its_retention_unless_stored() -> None:
    from mockserver.http.app import create_app
    from mockserver.settings import Settings

    settings = Settings(port=0, clock="frozen", background_retention=600)
    with BackgroundServer(create_app(settings)) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-zdr", max_retries=0)
        kept = sdk.responses.create(model=MODEL, input="keep me", background=True, store=True)
        polled = sdk.responses.create(model=MODEL, input="poll me", background=True)
        assert sdk.responses.retrieve(polled.id).status == "in_progress"
        control = httpx.Client(
            base_url=server.url + "/__mockserver", headers={"Authorization": "Bearer sk-zdr"}
        )
        assert control.post("/clock", json={"advance": 599}).status_code == 200
        assert sdk.responses.retrieve(polled.id).status == "completed"  # still within its 10 min
        assert control.post("/clock", json={"advance": 1}).status_code == 200
        with pytest.raises(openai.NotFoundError, match="not found"):
            sdk.responses.retrieve(polled.id)
        with pytest.raises(openai.BadRequestError, match="not found"):
            sdk.responses.create(model=MODEL, input="and?", previous_response_id=polled.id)
        assert sdk.responses.retrieve(kept.id).status == "in_progress"  # store: true keeps it
        control.close()
        sdk.close()
