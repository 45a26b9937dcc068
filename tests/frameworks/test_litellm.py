"""litellm's completion (with a tool loop) and embedding, aimed at the server, offline: its
price map is the packaged one (``LITELLM_LOCAL_MODEL_COST_MAP``, set by the conftest)."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

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


@pytest.fixture
def litellm(server: BackgroundServer, api_key: str) -> Iterator[Any]:
    module = pytest.importorskip("litellm")  # imported after the conftest set its offline env
    module.telemetry = False
    yield module
    # litellm's sync calls make the thread an event loop (asyncio.get_event_loop()) and never
    # close it: closed here, or its ResourceWarning surfaces (as an error) wherever it is
    # collected later — in the server thread, as a 500.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # none was made (or it was already cleared)
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)


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
