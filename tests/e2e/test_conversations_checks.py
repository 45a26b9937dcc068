"""The Conversations API refuses what the Responses API refuses, with the same 400s."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer

LONG_KEY = "k" * 65
KEY_TOO_LONG = (
    "Invalid 'metadata': key too long. Expected a key with maximum length 64, but got a key "
    "with length 65 instead."
)


@pytest.fixture
def api(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {api_key}"}
    ) as http:
        yield http


def error_of(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 400, answer.text
    error: dict[str, Any] = answer.json()["error"]
    return error


def test_a_metadata_key_over_64_characters_is_refused_on_create(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.conversations.create(metadata={LONG_KEY: "v"})
    assert caught.value.body == {
        "message": KEY_TOO_LONG,
        "type": "invalid_request_error",
        "param": "metadata",
        "code": "string_above_max_length",
    }
    assert client.conversations.create(metadata={"k" * 64: "v"}).metadata == {"k" * 64: "v"}


def test_a_metadata_key_over_64_characters_is_refused_on_update(client: openai.OpenAI) -> None:
    conversation = client.conversations.create(metadata={"topic": "intro"})
    with pytest.raises(openai.BadRequestError) as caught:
        client.conversations.update(conversation.id, metadata={LONG_KEY: "v"})
    assert (caught.value.code, caught.value.param) == ("string_above_max_length", "metadata")
    assert caught.value.message.endswith(KEY_TOO_LONG)
    assert client.conversations.retrieve(conversation.id).metadata == {"topic": "intro"}


def test_conversations_word_a_long_metadata_key_as_responses_do(api: httpx.Client) -> None:
    metadata = {"metadata": {LONG_KEY: "v"}}
    from_responses = api.post(
        "/responses", json={"model": "gpt-4o-mini", "input": "hi", **metadata}
    )
    assert error_of(api.post("/conversations", json=metadata)) == error_of(from_responses)


@pytest.mark.parametrize("name", ["include", "include[]"])
@pytest.mark.parametrize(
    ("method", "where"),
    [("GET", "/items"), ("POST", "/items"), ("GET", "/items/{item}")],
)
def test_an_unknown_include_is_refused_on_conversation_items(
    client: openai.OpenAI, api: httpx.Client, name: str, method: str, where: str
) -> None:
    conversation = client.conversations.create(items=[{"role": "user", "content": "Hi"}])
    item = client.conversations.items.list(conversation.id).data[0].id
    path = f"/conversations/{conversation.id}" + where.format(item=item)
    body = {"items": [{"role": "user", "content": "more"}]} if method == "POST" else None
    refused = api.request(method, path, params={name: "bogus"}, json=body)
    # The very check /v1/responses/{id}/input_items makes, so the very same 400.
    from_responses = api.get("/responses/resp_any/input_items", params={name: "bogus"})
    assert error_of(refused) == error_of(from_responses)
    assert error_of(refused)["code"] == "invalid_value"
    assert error_of(refused)["param"] == "include"
    assert len(client.conversations.items.list(conversation.id).data) == 1  # nothing added


def test_a_known_include_is_accepted_on_conversation_items(client: openai.OpenAI) -> None:
    conversation = client.conversations.create(items=[{"role": "user", "content": "Hi"}])
    include: Any = ["message.input_image.image_url", "reasoning.encrypted_content"]
    items = client.conversations.items.list(conversation.id, include=include)
    added = client.conversations.items.create(
        conversation.id, items=[{"role": "user", "content": "more"}], include=include
    )
    item = client.conversations.items.retrieve(
        added.data[0].id, conversation_id=conversation.id, include=include
    )
    assert [len(items.data), item.id] == [1, added.data[0].id]


def test_an_echoed_output_text_part_has_annotations_and_logprobs(client: openai.OpenAI) -> None:
    """The API lists an assistant's output text part with both, even when sent without."""
    said: Any = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi there."}],
    }
    expected = {"type": "output_text", "annotations": [], "logprobs": [], "text": "Hi there."}
    response = client.responses.create(model="gpt-4o-mini", input=[said])
    [listed] = client.responses.input_items.list(response.id).data
    assert listed.model_dump(mode="json")["content"] == [expected]
    conversation = client.conversations.create(items=[said])
    [item] = client.conversations.items.list(conversation.id).data
    assert item.model_dump(mode="json")["content"] == [expected]
