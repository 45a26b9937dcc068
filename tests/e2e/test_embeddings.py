"""``POST /v1/embeddings`` through the official SDK (float and base64) and raw httpx."""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer

DOCUMENTS = [
    "Paris is the capital of France.",
    "Kangaroos live in Australia.",
    "The mitochondria is the powerhouse of the cell.",
]


def use(control: httpx.Client, yaml_text: str) -> None:
    response = control.put(
        "/scenario", content=yaml_text, headers={"content-type": "application/yaml"}
    )
    assert response.status_code == 200, response.text


@pytest.fixture
def raw(server: BackgroundServer, api_key: str) -> Any:
    with httpx.Client(
        base_url=server.base_url, headers={"authorization": f"Bearer {api_key}"}
    ) as http:
        yield http


def test_the_sdk_default_base64_decodes_to_the_float_answer(client: openai.OpenAI) -> None:
    encoded = client.embeddings.create(model="text-embedding-3-small", input=DOCUMENTS)
    floats = client.embeddings.create(
        model="text-embedding-3-small", input=DOCUMENTS, encoding_format="float"
    )
    assert [d.index for d in encoded.data] == [0, 1, 2]
    for a, b in zip(encoded.data, floats.data, strict=True):
        assert len(a.embedding) == 1536
        assert a.embedding == pytest.approx(b.embedding, abs=1e-9)
        assert math.isclose(sum(x * x for x in b.embedding), 1.0, rel_tol=1e-5)
    assert floats.usage.prompt_tokens == floats.usage.total_tokens > 0
    assert floats.model == "text-embedding-3-small"


def test_a_small_retrieval_finds_the_document_with_the_querys_words(client: openai.OpenAI) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        answer = client.embeddings.create(model="text-embedding-3-small", input=texts)
        return [d.embedding for d in answer.data]

    documents = embed(DOCUMENTS)
    (query,) = embed(["Where do kangaroos live?"])
    scores = [sum(q * d for q, d in zip(query, doc, strict=True)) for doc in documents]
    assert scores.index(max(scores)) == 1


def test_models_sizes_and_dimensions(client: openai.OpenAI) -> None:
    def size(model: str, **params: Any) -> int:
        answer = client.embeddings.create(model=model, input="x", **params)
        return len(answer.data[0].embedding)

    assert size("text-embedding-3-large") == 3072
    assert size("text-embedding-ada-002") == 1536
    assert size("my-own-embedder") == 1536
    assert size("text-embedding-3-large", dimensions=256) == 256
    with pytest.raises(openai.BadRequestError, match="does not support specifying dimensions"):
        size("text-embedding-ada-002", dimensions=256)


def test_raw_base64_is_little_endian_float32(raw: httpx.Client) -> None:
    body = {"model": "text-embedding-3-small", "input": [[1212, 318, 257]], "dimensions": 8}
    floats = raw.post("/embeddings", json=body).json()
    encoded = raw.post("/embeddings", json={**body, "encoding_format": "base64"}).json()
    values = struct.unpack("<8f", base64.b64decode(encoded["data"][0]["embedding"]))
    assert list(values) == pytest.approx(floats["data"][0]["embedding"], abs=1e-9)
    assert floats["usage"] == {"prompt_tokens": 3, "total_tokens": 3}
    assert list(floats) == ["object", "data", "model", "usage"]


@pytest.mark.parametrize(
    ("body", "status", "param", "code"),
    [
        ({"model": "m", "input": ""}, 400, None, None),
        ({"model": "m"}, 400, "input", "missing_required_parameter"),
        ({"model": "m", "input": "x", "encoding_format": "hex"}, 400, "encoding_format", None),
        ({"model": "m", "input": "word " * 9000}, 400, None, None),
    ],
)
def test_bad_requests_get_the_apis_400(
    raw: httpx.Client, body: dict[str, Any], status: int, param: str | None, code: str | None
) -> None:
    answer = raw.post("/embeddings", json=body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["param"] == param
    if code is not None:
        assert error["code"] == code


RULES = """
rules:
  - id: chat-rule
    when: {last_user: {contains: cell}}
    reply: {text: chat only}
  - id: fixed
    when: {api: embeddings, last_user: {contains: mitochondria}}
    reply: {embedding: [0.6, 0.8]}
  - id: same-as-paris
    when: {api: embeddings, last_user: {contains: Lutetia}}
    reply: {text: "Paris is the capital of France."}
  - id: broken
    when: {api: embeddings, last_user: {contains: flaky}}
    reply: {error: {preset: overloaded}}
"""


def test_rules_script_a_vector_a_text_to_embed_or_an_error(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, RULES)
    answer = client.embeddings.create(
        model="m",
        input=[DOCUMENTS[0], "Lutetia", DOCUMENTS[2]],
        encoding_format="float",
    )
    paris, lutetia, cell = (d.embedding for d in answer.data)
    assert cell == [0.6, 0.8]
    assert lutetia == paris
    with pytest.raises(openai.InternalServerError):
        client.embeddings.create(model="m", input="flaky")
    calls = control.get("/calls").json()["data"]
    assert [(c["api"], c["status"], c["rule"]) for c in calls] == [
        ("embeddings", 200, "same-as-paris"),  # the first rule that answered an input
        ("embeddings", 503, "broken"),
    ]
    rules = {r["id"]: r["hits"] for r in control.get("/scenario").json()["rules"]}
    assert rules == {"chat-rule": 0, "fixed": 1, "same-as-paris": 1, "broken": 1}


def test_a_strict_scenario_refuses_embeddings_no_rule_asks_for(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, "fallback: strict\nrules:\n  - {when: {last_user: x}, reply: {text: y}}\n")
    with pytest.raises(openai.BadRequestError, match=r"only with when: \{api: embeddings\}"):
        client.embeddings.create(model="m", input="x")


def test_faults_latency_and_rate_limit_headers_apply(
    control: httpx.Client, raw: httpx.Client
) -> None:
    use(
        control,
        "rules:\n  - when: {api: embeddings, last_user: cut}\n"
        "    reply: {embedding: generate, fault: {truncate: 0.5}}\n",
    )
    whole = raw.post("/embeddings", json={"model": "m", "input": "fine"})
    assert whole.headers["x-ratelimit-limit-requests"]
    assert whole.headers["x-request-id"].startswith("req_")
    cut = raw.post("/embeddings", json={"model": "m", "input": "cut"})
    assert cut.status_code == 200
    assert len(cut.content) < len(whole.content) * 0.6


def test_a_one_off_error_is_served_to_the_next_embeddings_request(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    control.post("/next", json={"error": {"preset": "rate_limited"}}).raise_for_status()
    with pytest.raises(openai.RateLimitError):
        client.embeddings.create(model="m", input="x")
    assert client.embeddings.create(model="m", input="x").data


def test_an_embedding_reply_to_a_chat_request_is_reported(
    control: httpx.Client, client: openai.OpenAI
) -> None:
    use(control, "rules:\n  - reply: {embedding: [1.0]}\n")
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert info.value.body["code"] == "scenario_reply_invalid"  # type: ignore[index]
