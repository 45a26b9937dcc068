"""litellm's completion (with a tool loop) and embedding, aimed at the server, offline: its
price map is the packaged one (``LITELLM_LOCAL_MODEL_COST_MAP``, set by the conftest)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from mockserver.http.server import BackgroundServer
from mockserver.reply.embeddings import cosine

pytestmark = pytest.mark.filterwarnings(
    # litellm's own TypedDicts, as pydantic builds their schemas on its import
    "ignore:.*`ReadOnly` qualifier:UserWarning",
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


@pytest.fixture
def client(server: BackgroundServer, api_key: str) -> Iterator[openai.OpenAI]:
    """The SDK client litellm is handed (closed here: litellm caches and keeps its own)."""
    with openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0) as client:
        yield client


def test_completion_runs_a_tool_loop(
    litellm: Any, client: openai.OpenAI, server: BackgroundServer, api_key: str
) -> None:
    options = {
        "model": "openai/gpt-4o-mini",
        "api_base": server.base_url,
        "api_key": api_key,
        "client": client,
    }
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    first = litellm.completion(messages=messages, tools=TOOLS, tool_choice="required", **options)
    (call,) = first.choices[0].message.tool_calls
    assert "city" in json.loads(call.function.arguments)
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "3 °C"},
    ]
    final = litellm.completion(messages=messages, tools=TOOLS, **options)
    assert final.choices[0].finish_reason == "stop"
    assert final.choices[0].message.content
    assert final.usage.prompt_tokens > 0


def test_embedding_returns_meaningful_vectors(
    litellm: Any, client: openai.OpenAI, server: BackgroundServer, api_key: str
) -> None:
    answer = litellm.embedding(
        model="openai/text-embedding-3-small",
        api_base=server.base_url,
        api_key=api_key,
        client=client,
        input=["red apples and green pears", "green pears", "tax law in Norway"],
    )
    fruit, pears, tax = (item["embedding"] for item in answer.data)
    assert len(fruit) == 1536
    assert cosine(fruit, pears) > cosine(fruit, tax)


@pytest.fixture
def azure(server: BackgroundServer, api_key: str) -> Iterator[openai.AzureOpenAI]:
    """The Azure SDK client litellm's ``azure/…`` models are handed."""
    with openai.AzureOpenAI(
        azure_endpoint=server.url, api_key=api_key, api_version="2024-10-21", max_retries=0
    ) as client:
        yield client


def _azure_options(server: BackgroundServer, api_key: str, client: Any) -> dict[str, Any]:
    return {
        "model": "azure/my-deployment",
        "api_base": server.url,
        "api_key": api_key,
        "api_version": "2024-10-21",
        "client": client,
    }


def test_azure_completion_is_the_scripted_reply(
    litellm: Any, azure: openai.AzureOpenAI, server: BackgroundServer, api_key: str
) -> None:
    scenario = {
        "scenario": {
            "name": "azure",
            "rules": [
                {
                    "when": {"provider": "azure", "model": {"equals": "my-deployment"}},
                    "reply": {"text": "Hello from the deployment."},
                }
            ],
        }
    }
    control = f"{server.url}/__mockserver/scenario"
    assert httpx.put(control, json=scenario, headers={"api-key": api_key}).status_code == 200
    answer = litellm.completion(
        messages=[{"role": "user", "content": "Hi"}], **_azure_options(server, api_key, azure)
    )
    assert answer.choices[0].message.content == "Hello from the deployment."
    assert answer.usage.total_tokens > 0


def test_azure_stream_skips_the_filter_chunk(
    litellm: Any, azure: openai.AzureOpenAI, server: BackgroundServer, api_key: str
) -> None:
    options = _azure_options(server, api_key, azure)
    messages = [{"role": "user", "content": "Tell me something"}]
    whole = litellm.completion(messages=messages, **options)
    pieces = list(litellm.completion(messages=messages, stream=True, **options))
    assert pieces
    text = "".join(p.choices[0].delta.content or "" for p in pieces if p.choices)
    assert text == whole.choices[0].message.content


def test_azure_tool_call(
    litellm: Any, azure: openai.AzureOpenAI, server: BackgroundServer, api_key: str
) -> None:
    answer = litellm.completion(
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=TOOLS,
        tool_choice="required",
        **_azure_options(server, api_key, azure),
    )
    (call,) = answer.choices[0].message.tool_calls
    assert call.function.name == "get_weather"
    assert "city" in json.loads(call.function.arguments)
