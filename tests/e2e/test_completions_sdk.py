"""The legacy ``POST /v1/completions`` through the official SDK (``client.completions``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer

MODEL = "gpt-3.5-turbo-instruct"

SCENARIO = {
    "scenario": {
        "name": "legacy",
        "rules": [
            {
                "id": "test",
                "when": {"api": "completions", "last_user": {"contains": "Say this is a test"}},
                "reply": {"text": " This is indeed a test."},
            },
            {
                "id": "chat-only",
                "when": {"api": "chat"},
                "reply": {"text": "a chat answer"},
            },
            {
                "id": "limited",
                "when": {"last_user": {"contains": "busy"}},
                "reply": {"error": {"preset": "rate_limited"}},
            },
        ],
    }
}


@pytest.fixture
def scripted(control: httpx.Client) -> None:
    assert control.put("/scenario", json=SCENARIO).status_code == 200


def _post(server: BackgroundServer, api_key: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/completions", json=body, headers={"authorization": f"Bearer {api_key}"}
    )


def test_a_completion_is_the_scripted_text(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(model=MODEL, prompt="Say this is a test")
    assert completion.object == "text_completion"
    assert completion.id.startswith("cmpl-")
    assert completion.model == MODEL
    (choice,) = completion.choices
    assert (choice.text, choice.index, choice.finish_reason) == (
        " This is indeed a test.",
        0,
        "stop",
    )
    assert choice.logprobs is None
    assert completion.usage is not None
    assert completion.usage.total_tokens == (
        completion.usage.prompt_tokens + completion.usage.completion_tokens
    )


def test_the_body_is_the_apis_keys_in_its_order(server: BackgroundServer, api_key: str) -> None:
    response = _post(server, api_key, {"model": MODEL, "prompt": "Hello"})
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["id", "object", "created", "model", "choices", "usage"]
    assert list(body["choices"][0]) == ["text", "index", "logprobs", "finish_reason"]
    assert list(body["usage"]) == ["prompt_tokens", "completion_tokens", "total_tokens"]
    assert response.content.startswith(b'{\n  "id": "cmpl-')  # indented, as the API writes it


def test_max_tokens_defaults_to_16(client: openai.OpenAI) -> None:
    completion = client.completions.create(model=MODEL, prompt="Tell me a long story")
    assert completion.usage is not None
    assert completion.usage.completion_tokens <= 16
    if completion.usage.completion_tokens == 16:
        assert completion.choices[0].finish_reason == "length"
    shorter = client.completions.create(model=MODEL, prompt="Tell me a long story", max_tokens=3)
    assert shorter.choices[0].finish_reason == "length"
    assert shorter.usage is not None
    assert shorter.usage.completion_tokens == 3


def test_a_stream_is_text_chunks_then_done(
    client: openai.OpenAI, server: BackgroundServer, api_key: str, scripted: None
) -> None:
    chunks = list(client.completions.create(model=MODEL, prompt="Say this is a test", stream=True))
    assert len(chunks) > 2
    assert "".join(c.choices[0].text for c in chunks) == " This is indeed a test."
    assert [c.choices[0].finish_reason for c in chunks][-2:] == [None, "stop"]
    raw = _post(
        server, api_key, {"model": MODEL, "prompt": "Say this is a test", "stream": True}
    ).content
    assert raw.endswith(b"\n\ndata: [DONE]\n\n")
    frames = raw[:-2].split(b"\n\n")[:-1]
    assert frames
    for frame in frames:
        payload = frame.removeprefix(b"data: ")
        chunk = json.loads(payload)
        assert payload == json.dumps(chunk, separators=(",", ":")).encode()
        assert list(chunk) == ["id", "object", "created", "choices", "model"]


def test_a_cut_stream_puts_its_finish_reason_on_its_last_piece(client: openai.OpenAI) -> None:
    chunks = list(client.completions.create(model=MODEL, prompt="Hi", max_tokens=3, stream=True))
    assert len(chunks) == 3
    assert [c.choices[0].finish_reason for c in chunks] == [None, None, "length"]


def test_include_usage_ends_the_stream_with_the_usage(client: openai.OpenAI) -> None:
    chunks = list(
        client.completions.create(
            model=MODEL,
            prompt="Hi",
            max_tokens=4,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 4
    assert all(c.usage is None for c in chunks[:-1])


def test_echo_puts_the_prompt_in_front(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(model=MODEL, prompt="Say this is a test", echo=True)
    assert completion.choices[0].text == "Say this is a test This is indeed a test."
    streamed = list(
        client.completions.create(model=MODEL, prompt="Say this is a test", echo=True, stream=True)
    )
    assert streamed[0].choices[0].text == "Say this is a test"
    assert "".join(c.choices[0].text for c in streamed) == completion.choices[0].text


def test_logprobs_are_the_legacy_object(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(model=MODEL, prompt="Say this is a test", logprobs=3)
    choice = completion.choices[0]
    logprobs = choice.logprobs
    assert logprobs is not None
    tokens = logprobs.tokens or []
    assert tokens
    assert "".join(tokens) == choice.text
    assert len(logprobs.token_logprobs or []) == len(tokens)
    assert all(lp <= 0 for lp in logprobs.token_logprobs or [])
    tops = logprobs.top_logprobs or []
    assert all(len(top) == 3 for top in tops)
    for token, top in zip(tokens, tops, strict=True):
        assert token in top  # the sampled token is the most likely
    offsets = logprobs.text_offset or []
    start = len("Say this is a test")  # offsets run over the prompt, then the completion
    assert offsets[0] == start
    assert offsets == [start + len("".join(tokens[:i])) for i in range(len(tokens))]


def test_echoed_logprobs_cover_the_prompt_first_unscored(
    client: openai.OpenAI, scripted: None
) -> None:
    completion = client.completions.create(
        model=MODEL, prompt="Say this is a test", echo=True, logprobs=1, max_tokens=0
    )
    choice = completion.choices[0]
    assert choice.text == "Say this is a test"
    assert choice.finish_reason == "length"
    logprobs = choice.logprobs
    assert logprobs is not None
    assert "".join(logprobs.tokens or []) == "Say this is a test"
    assert (logprobs.token_logprobs or [])[0] is None
    assert (logprobs.top_logprobs or [])[0] is None
    assert (logprobs.text_offset or [])[0] == 0


def test_a_suffix_is_taken_and_not_echoed(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(
        model=MODEL, prompt="Say this is a test", suffix="\n# end"
    )
    assert completion.choices[0].text == " This is indeed a test."


def test_prompts_and_n_give_a_choice_each(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(
        model=MODEL, prompt=["Say this is a test", "Hello"], n=2, max_tokens=10
    )
    assert [c.index for c in completion.choices] == [0, 1, 2, 3]
    texts = [c.text for c in completion.choices]
    assert texts[0] == texts[1] == " This is indeed a test."
    assert texts[2] == texts[3] != texts[0]


def test_token_prompts_are_taken(client: openai.OpenAI) -> None:
    completion = client.completions.create(model=MODEL, prompt=[[1212, 318], [257]])
    assert len(completion.choices) == 2


def test_an_api_rule_answers_only_its_api(client: openai.OpenAI, scripted: None) -> None:
    completion = client.completions.create(model=MODEL, prompt="anything")
    assert completion.choices[0].text != "a chat answer"


def test_a_scripted_429_is_the_apis(
    client: openai.OpenAI, scripted: None, control: httpx.Client
) -> None:
    with pytest.raises(openai.RateLimitError) as caught:
        client.completions.create(model=MODEL, prompt="I am busy")
    assert caught.value.response.headers["retry-after"] == "1"
    assert [(c["status"], c["api"]) for c in control.get("/calls").json()["data"]] == [
        (429, "completions")
    ]


def test_a_later_prompts_error_answers_the_request_journaled_once(
    client: openai.OpenAI, scripted: None, control: httpx.Client
) -> None:
    with pytest.raises(openai.RateLimitError):
        client.completions.create(model=MODEL, prompt=["Hello", "I am busy"])
    (call,) = control.get("/calls").json()["data"]
    assert call["status"] == 429


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"prompt": "x"}, None, None),
        ({"model": MODEL}, "prompt", "missing_required_parameter"),
        ({"model": MODEL, "prompt": []}, "prompt", None),
        ({"model": MODEL, "prompt": [1, "a"]}, "prompt", None),
        ({"model": MODEL, "prompt": "x", "logprobs": 6}, "logprobs", "integer_above_max_value"),
        (
            {"model": MODEL, "prompt": "x", "max_tokens": -1},
            "max_tokens",
            "integer_below_min_value",
        ),
        ({"model": MODEL, "prompt": "x", "echo": "yes"}, "echo", "invalid_type"),
        ({"model": MODEL, "prompt": "x", "n": 2, "best_of": 1}, "best_of", None),
        ({"model": MODEL, "prompt": "x", "best_of": 2, "stream": True}, "best_of", None),
        ({"model": MODEL, "prompt": "x", "stream_options": {}}, "stream_options", None),
    ],
)
def test_a_bad_request_is_the_apis_400(
    server: BackgroundServer,
    api_key: str,
    body: dict[str, Any],
    param: str | None,
    code: str | None,
) -> None:
    response = _post(server, api_key, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")


def test_the_sdk_raises_bad_request(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model=MODEL, prompt="x", logprobs=9)
    assert caught.value.param == "logprobs"


def test_azure_serves_legacy_completions_under_a_deployment(
    server: BackgroundServer, api_key: str
) -> None:
    with openai.AzureOpenAI(
        azure_endpoint=server.url, api_key=api_key, api_version="2024-10-21", max_retries=0
    ) as azure:
        completion = azure.completions.create(model="instruct", prompt="Hello", max_tokens=4)
        chunks = list(
            azure.completions.create(model="instruct", prompt="Hello", max_tokens=4, stream=True)
        )
    assert completion.model == "instruct"
    assert (completion.model_extra or {})["prompt_filter_results"][0]["prompt_index"] == 0
    assert "content_filter_results" in (completion.choices[0].model_extra or {})
    assert chunks[0].choices == []
    assert "".join(c.choices[0].text for c in chunks if c.choices) == completion.choices[0].text
