"""Azure OpenAI through the official SDK: ``openai.AzureOpenAI`` against a real server.

The deployment paths (``/openai/deployments/{deployment}/…?api-version=…``) and the ``/openai/v1``
ones are served by OpenAI's endpoints, in Azure's shape: the content filter's results on every
answer, its ``content_filter`` 400 for a prompt it blocks, the gateway's 404 without a version.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import orjson
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

VERSION = "2024-10-21"
HELLO = [{"role": "user", "content": "Say hello"}]

SCENARIO = {
    "scenario": {
        "name": "azure",
        "rules": [
            {
                "id": "violent",
                "when": {"last_user": {"contains": "fight"}},
                "reply": {"text": "No.", "moderation": {"input": ["violence"]}},
            },
            {
                "id": "rude",
                "when": {"last_user": {"contains": "roast"}},
                "reply": {"text": "You are terrible.", "moderation": {"output": ["harassment"]}},
            },
            {
                "id": "flaky",
                "when": {"last_user": {"contains": "flaky"}},
                "replies": [
                    {"error": {"preset": "rate_limited", "retry_after": 0.3}},
                    {"text": "recovered"},
                ],
            },
            {
                "id": "azure-only",
                "when": {"provider": "azure", "last_user": {"contains": "who"}},
                "reply": {"text": "Azure answers."},
            },
            {
                "id": "by-deployment",
                "when": {"model": {"equals": "support-bot"}},
                "reply": {"text": "The support deployment answers."},
            },
        ],
    }
}


@pytest.fixture
def azure(server: BackgroundServer, api_key: str) -> Iterator[openai.AzureOpenAI]:
    """``AzureOpenAI`` on the test's namespace (its key goes in the ``api-key`` header)."""
    with openai.AzureOpenAI(
        azure_endpoint=server.url, api_key=api_key, api_version=VERSION, max_retries=0, timeout=10
    ) as sdk:
        yield sdk


@pytest.fixture
def scripted(control: httpx.Client) -> None:
    assert control.put("/scenario", json=SCENARIO).status_code == 200


def _calls(control: httpx.Client) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = control.get("/calls").json()["data"]
    return data


def test_a_chat_completion_carries_the_content_filters_results(
    azure: openai.AzureOpenAI,
) -> None:
    raw = azure.chat.completions.with_raw_response.create(model="my-gpt", messages=HELLO)
    completion = raw.parse()
    assert completion.model == "my-gpt"
    assert completion.choices[0].message.content
    assert completion.choices[0].finish_reason == "stop"
    prompt_results = (completion.model_extra or {})["prompt_filter_results"]
    assert prompt_results[0]["prompt_index"] == 0
    assert prompt_results[0]["content_filter_results"]["jailbreak"] == {
        "filtered": False,
        "detected": False,
    }
    choice_results = (completion.choices[0].model_extra or {})["content_filter_results"]
    assert set(choice_results) == {"hate", "self_harm", "sexual", "violence"}
    assert all(r == {"filtered": False, "severity": "safe"} for r in choice_results.values())
    assert raw.headers["x-ms-deployment-name"] == "my-gpt"
    assert len(raw.headers["apim-request-id"]) == 36
    assert "service_tier" not in raw.http_response.json()


def test_the_deployment_is_the_model_whatever_the_body_says(
    azure: openai.AzureOpenAI, control: httpx.Client
) -> None:
    with openai.AzureOpenAI(
        azure_endpoint=str(azure._azure_endpoint),
        azure_deployment="support-bot",
        api_key=azure.api_key,
        api_version=VERSION,
        max_retries=0,
    ) as deployed:
        completion = deployed.chat.completions.create(model="gpt-4o", messages=HELLO)
    assert completion.model == "support-bot"
    (call,) = _calls(control)
    assert call["path"] == "/openai/deployments/support-bot/chat/completions"
    assert call["model"] == "support-bot"


def test_a_scenario_matches_the_deployment_as_the_model(
    azure: openai.AzureOpenAI, scripted: None
) -> None:
    completion = azure.chat.completions.create(model="support-bot", messages=HELLO)
    assert completion.choices[0].message.content == "The support deployment answers."


def test_a_rule_can_single_out_azure(
    azure: openai.AzureOpenAI, client: openai.OpenAI, scripted: None
) -> None:
    ask = [{"role": "user", "content": "who answers?"}]
    assert azure.chat.completions.create(model="d", messages=ask).choices[0].message.content == (
        "Azure answers."
    )
    plain = client.chat.completions.create(model="gpt-4o", messages=ask)
    assert plain.choices[0].message.content != "Azure answers."


def test_a_stream_opens_with_the_prompts_filter_results(azure: openai.AzureOpenAI) -> None:
    whole = azure.chat.completions.create(model="my-gpt", messages=HELLO)
    chunks = list(azure.chat.completions.create(model="my-gpt", messages=HELLO, stream=True))
    assert len(chunks) > 3
    first = chunks[0]
    assert (first.id, first.choices, first.created) == ("", [], 0)
    assert (first.model_extra or {})["prompt_filter_results"][0]["prompt_index"] == 0
    texts = [c.choices[0].delta.content or "" for c in chunks[1:] if c.choices]
    assert "".join(texts) == whole.choices[0].message.content
    said = [c.choices[0] for c in chunks[1:] if c.choices and c.choices[0].delta.content]
    assert said
    for choice in said:
        assert (choice.model_extra or {})["content_filter_results"]["hate"]["filtered"] is False
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_the_raw_stream_is_azures_frames_ending_with_done(
    server: BackgroundServer, api_key: str
) -> None:
    response = httpx.post(
        f"{server.url}/openai/deployments/my-gpt/chat/completions",
        params={"api-version": VERSION},
        json={"messages": HELLO, "stream": True},
        headers={"api-key": api_key},
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    raw = response.content
    assert raw.endswith(b"\n\ndata: [DONE]\n\n")
    frames = raw[:-2].split(b"\n\n")
    assert frames[0].startswith(b'data: {"choices":[],"created":0,"id":"","model":"","object":""')
    payloads = [f.removeprefix(b"data: ") for f in frames[:-1]]
    assert len(payloads) > 3
    for payload in payloads:  # compact JSON, every object's keys but the filters' sorted
        chunk = json.loads(payload)
        assert payload == json.dumps(chunk, separators=(",", ":")).encode()
        assert list(chunk) == sorted(chunk)
    opener = json.loads(payloads[1])
    assert opener["choices"][0] == {
        "content_filter_results": {},
        "delta": {"content": "", "refusal": None, "role": "assistant"},
        "finish_reason": None,
        "index": 0,
        "logprobs": None,
    }
    assert b"obfuscation" not in raw
    assert b"service_tier" not in raw


def test_a_whole_answer_is_compact_json(server: BackgroundServer, api_key: str) -> None:
    response = httpx.post(
        f"{server.url}/openai/deployments/my-gpt/chat/completions?api-version={VERSION}",
        json={"messages": HELLO},
        headers={"api-key": api_key},
    )
    assert response.status_code == 200
    assert response.content == json.dumps(response.json(), separators=(",", ":")).encode()


def test_a_path_without_api_version_is_the_gateways_404(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    response = httpx.post(
        f"{server.url}/openai/deployments/my-gpt/chat/completions",
        json={"messages": HELLO},
        headers={"api-key": api_key},
    )
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "404", "message": "Resource not found"}}
    (call,) = _calls(control)
    assert (call["status"], call["api"]) == (404, "chat")


def test_an_unknown_azure_path_is_the_gateways_404(server: BackgroundServer, api_key: str) -> None:
    response = httpx.post(
        f"{server.url}/openai/deployments/my-gpt/nothing?api-version={VERSION}",
        json={},
        headers={"api-key": api_key},
    )
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "404", "message": "Resource not found"}}


def test_a_blocked_prompt_is_the_content_filter_400_with_its_innererror(
    azure: openai.AzureOpenAI, scripted: None, control: httpx.Client
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        azure.chat.completions.create(
            model="my-gpt", messages=[{"role": "user", "content": "teach me to fight"}]
        )
    error = caught.value
    assert (error.status_code, error.code, error.param, error.type) == (
        400,
        "content_filter",
        "prompt",
        None,
    )
    assert isinstance(error.body, dict)
    inner = error.body["innererror"]
    assert inner["code"] == "ResponsibleAIPolicyViolation"
    assert inner["content_filter_result"]["violence"]["filtered"] is True
    assert inner["content_filter_result"]["violence"]["severity"] in ("medium", "high")
    assert inner["content_filter_result"]["hate"] == {"filtered": False, "severity": "safe"}
    (call,) = _calls(control)  # journaled once, as the turn's answer
    assert (call["status"], call["rule"]) == (400, "violent")


def test_a_blocked_prompt_refuses_a_response_too(azure: openai.AzureOpenAI, scripted: None) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        azure.responses.create(model="my-gpt", input="teach me to fight")
    assert caught.value.code == "content_filter"
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["innererror"]["code"] == "ResponsibleAIPolicyViolation"


def test_a_blocked_completion_ends_with_the_content_filter(
    azure: openai.AzureOpenAI, scripted: None
) -> None:
    ask = [{"role": "user", "content": "roast me"}]
    completion = azure.chat.completions.create(model="my-gpt", messages=ask)
    choice = completion.choices[0]
    assert choice.finish_reason == "content_filter"
    assert choice.message.content is None
    assert (choice.model_extra or {})["content_filter_results"]["hate"]["filtered"] is True
    chunks = list(azure.chat.completions.create(model="my-gpt", messages=ask, stream=True))
    last = chunks[-1].choices[0]
    assert last.finish_reason == "content_filter"
    assert (last.model_extra or {})["content_filter_results"]["hate"]["filtered"] is True


def test_a_429_is_retried_after_retry_after_ms(
    server: BackgroundServer, api_key: str, scripted: None, control: httpx.Client
) -> None:
    with openai.AzureOpenAI(
        azure_endpoint=server.url, api_key=api_key, api_version=VERSION, max_retries=2
    ) as retrying:
        started = time.monotonic()
        raw = retrying.chat.completions.with_raw_response.create(
            model="my-gpt", messages=[{"role": "user", "content": "flaky"}]
        )
        waited = time.monotonic() - started
    assert raw.parse().choices[0].message.content == "recovered"
    assert raw.retries_taken == 1
    assert waited >= 0.3  # retry-after-ms (300), not retry-after's whole second
    assert [c["status"] for c in _calls(control)] == [429, 200]


def test_a_429_carries_both_retry_headers(azure: openai.AzureOpenAI, scripted: None) -> None:
    with pytest.raises(openai.RateLimitError) as caught:
        azure.chat.completions.create(model="d", messages=[{"role": "user", "content": "flaky"}])
    headers = caught.value.response.headers
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("1", "300")
    assert len(headers["apim-request-id"]) == 36
    error = caught.value.response.json()["error"]
    assert error["code"] == "429"  # the gateway's body, not OpenAI's
    assert error["message"].startswith("Requests to the d deployment ")
    assert "Please retry after 1 seconds." in error["message"]
    assert caught.value.response.content == orjson.dumps(caught.value.response.json())


def test_embeddings_under_a_deployment(azure: openai.AzureOpenAI) -> None:
    raw = azure.embeddings.with_raw_response.create(model="my-embedder", input=["a", "b"])
    answer = raw.parse()
    assert [e.index for e in answer.data] == [0, 1]
    assert answer.model == "my-embedder"
    assert len(answer.data[0].embedding) > 0
    assert raw.headers["x-ms-deployment-name"] == "my-embedder"


def test_responses_at_azures_path(azure: openai.AzureOpenAI, control: httpx.Client) -> None:
    response = azure.responses.create(model="my-gpt", input="Say hello")
    assert response.output_text
    again = azure.responses.retrieve(response.id)
    assert again.id == response.id
    events = list(azure.responses.create(model="my-gpt", input="Say hello", stream=True))
    assert events[-1].type == "response.completed"
    assert _calls(control)[0]["path"] == "/openai/responses"


def test_the_v1_paths_answer_the_plain_openai_client(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    with openai.OpenAI(base_url=f"{server.url}/openai/v1/", api_key=api_key, max_retries=0) as v1:
        completion = v1.chat.completions.create(model="my-gpt", messages=HELLO)
        streamed = list(v1.chat.completions.create(model="my-gpt", messages=HELLO, stream=True))
        vectors = v1.embeddings.create(model="my-embedder", input="hello")
        response = v1.responses.create(model="my-gpt", input="Say hello")
        models = [m.id for m in v1.models.list()]
    assert "prompt_filter_results" in (completion.model_extra or {})
    assert streamed[0].choices == []
    assert len(vectors.data[0].embedding) > 0
    assert response.output_text
    assert models
    paths = [c["path"] for c in _calls(control)]
    assert paths[:4] == [
        "/openai/v1/chat/completions",
        "/openai/v1/chat/completions",
        "/openai/v1/embeddings",
        "/openai/v1/responses",
    ]


def test_the_models_list_needs_its_version(
    azure: openai.AzureOpenAI, server: BackgroundServer
) -> None:
    assert [m.id for m in azure.models.list()]
    assert httpx.get(f"{server.url}/openai/models").status_code == 404


def test_the_session_header_names_the_namespace(
    server: BackgroundServer, api_key: str, control: httpx.Client
) -> None:
    with openai.AzureOpenAI(
        azure_endpoint=server.url,
        api_key="some-other-key",
        api_version=VERSION,
        default_headers={"x-mockserver-session": api_key},
        max_retries=0,
    ) as tagged:
        tagged.chat.completions.create(model="my-gpt", messages=HELLO)
    assert len(_calls(control)) == 1


@pytest.mark.anyio
async def test_the_async_client_answers_whole_and_streamed(
    server: BackgroundServer, api_key: str
) -> None:
    async with openai.AsyncAzureOpenAI(
        azure_endpoint=server.url, api_key=api_key, api_version=VERSION, max_retries=0
    ) as sdk:
        whole = await sdk.chat.completions.create(model="my-gpt", messages=HELLO)
        stream = await sdk.chat.completions.create(model="my-gpt", messages=HELLO, stream=True)
        chunks = [chunk async for chunk in stream]
    assert chunks
    assert chunks[0].choices == []
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content


def test_a_server_with_keys_refuses_a_wrong_azure_key_as_azure_does() -> None:
    guarded = start_server(api_keys=("right-key",))
    try:
        url = f"{guarded.url}/openai/deployments/d/chat/completions?api-version={VERSION}"
        wrong = httpx.post(url, json={"messages": HELLO}, headers={"api-key": "wrong-key"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "401"
        assert wrong.json()["error"]["message"].startswith("Access denied")
        assert "wrong-key" not in wrong.text
        right = httpx.post(url, json={"messages": HELLO}, headers={"api-key": "right-key"})
        assert right.status_code == 200
        bearer = httpx.post(
            url, json={"messages": HELLO}, headers={"authorization": "Bearer right-key"}
        )
        assert bearer.status_code == 200
    finally:
        guarded.stop()
