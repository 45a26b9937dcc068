"""Every API request is journaled and carries the API's headers; control requests are not API
calls and are never journaled."""

from __future__ import annotations

import re
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.wire.catalog import MODEL_IDS

MESSAGES: list[Any] = [{"role": "user", "content": "Hello"}]


def calls(server: BackgroundServer, namespace: str) -> list[dict[str, Any]]:
    answer = httpx.get(server.url + "/__mockserver/calls", params={"namespace": namespace})
    data: list[dict[str, Any]] = answer.json()["data"]
    return data


def test_the_model_list_is_the_contracts_ids(client: openai.OpenAI) -> None:
    listed = [m.id for m in client.models.list()]
    assert listed == list(MODEL_IDS)
    assert listed[0] == "gpt-6-astra"  # the contract's example model
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9.:-]*", model) for model in listed), listed
    assert {client.models.retrieve(model).id for model in listed} == set(listed)


def test_retrieve_list_and_delete_answers_have_request_ids(client: openai.OpenAI) -> None:
    created = client.responses.create(model="gpt-4o-mini", input="Hello")
    answers = [
        client.models.with_raw_response.list(),
        client.responses.with_raw_response.retrieve(created.id),
        client.responses.input_items.with_raw_response.list(created.id),
        client.responses.with_raw_response.delete(created.id),
    ]
    request_ids = [answer.request_id for answer in answers]
    assert all(rid and rid.startswith("req_") for rid in request_ids), request_ids
    assert len(set(request_ids)) == len(request_ids)
    assert {answer.headers["openai-version"] for answer in answers} == {"2020-10-01"}


def test_every_api_request_is_journaled_in_order(
    server: BackgroundServer, client: openai.OpenAI, api_key: str
) -> None:
    created = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, store=True)
    client.chat.completions.retrieve(created.id)
    client.chat.completions.delete(created.id)
    journal = calls(server, api_key)
    assert [(c["method"], c["status"]) for c in journal] == [
        ("POST", 200),
        ("GET", 200),
        ("DELETE", 200),
    ]
    assert journal[1]["summary"] == f"chat.completion {created.id}"
    assert journal[1]["response"]["id"] == created.id
    assert journal[2]["response"]["deleted"] is True
    assert [c["api"] for c in journal] == ["chat", None, None]  # only turns are "chat" calls


def test_a_refused_create_is_journaled_with_its_api_model_and_stream(
    server: BackgroundServer, client: openai.OpenAI, api_key: str
) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, stream=True, n=3)
    (refused,) = calls(server, api_key)
    assert (refused["status"], refused["api"], refused["model"], refused["stream"]) == (
        400,
        "chat",
        "gpt-4o-mini",
        True,
    )


def test_a_refused_control_request_is_not_an_api_call(
    server: BackgroundServer, api_key: str
) -> None:
    control = server.url + "/__mockserver"
    before = calls(server, "default")
    answer = httpx.post(control + "/clock", params={"namespace": api_key}, json={"advance": -1})
    assert answer.status_code == 400
    assert "error" in answer.json()
    bad = httpx.put(
        control + "/scenario",
        params={"namespace": api_key},
        content=b"rules: [{when: {nope: 1}}]",
        headers={"content-type": "application/yaml"},
    )
    assert bad.status_code == 400
    assert calls(server, api_key) == []
    assert calls(server, "default") == before


def test_each_refusal_has_its_own_request_id(client: openai.OpenAI) -> None:
    request_ids = []
    for _ in range(2):
        with pytest.raises(openai.NotFoundError) as caught:
            client.responses.retrieve("resp_nope")
        request_ids.append(caught.value.request_id)
    assert all(rid and rid.startswith("req_") for rid in request_ids)
    assert request_ids[0] != request_ids[1]


def test_a_call_to_an_unknown_api_route_is_journaled(
    server: BackgroundServer, api_key: str
) -> None:
    answer = httpx.post(
        server.base_url + "/chat/completion",  # a typo a client could make
        json={"model": "m", "messages": MESSAGES},
        headers={"authorization": f"Bearer {api_key}"},
    )
    assert answer.status_code == 404
    assert answer.headers["x-request-id"].startswith("req_")
    (call,) = calls(server, api_key)
    assert (call["method"], call["path"], call["status"]) == ("POST", "/v1/chat/completion", 404)
    assert call["summary"] == "invalid_request_error: Invalid URL (POST /v1/chat/completion)"
