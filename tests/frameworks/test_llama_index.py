"""llama-index: an index over the server's embeddings retrieves the right node, and its
OpenAI LLM answers a chat. Its tokenizer is set to a plain split, since the default (tiktoken)
fetches its encoding from off the machine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer

pytest.importorskip("llama_index.embeddings.openai")
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.llms import ChatMessage
from llama_index.core.schema import TextNode
from llama_index.embeddings.openai import OpenAIEmbedding
from llama_index.llms.openai import OpenAI

NOTES = [
    "The invoice for March was paid by bank transfer.",
    "Our office plants need watering every Tuesday.",
    "The staging database is backed up nightly at 2am.",
]


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:  # closed here: llama-index would leave its own open
        yield client


@pytest.fixture
def offline_tokenizer() -> Iterator[None]:
    before = Settings._tokenizer
    Settings.tokenizer = str.split  # type: ignore[assignment]
    yield
    Settings._tokenizer = before


def test_an_index_retrieves_the_node_sharing_the_querys_words(
    server: BackgroundServer, api_key: str, http: httpx.Client, offline_tokenizer: None
) -> None:
    embed = OpenAIEmbedding(
        model="text-embedding-3-small",
        api_base=server.base_url,
        api_key=api_key,
        max_retries=0,
        http_client=http,
    )
    index = VectorStoreIndex([TextNode(text=note) for note in NOTES], embed_model=embed)
    (best,) = index.as_retriever(similarity_top_k=1).retrieve("When is the database backed up?")
    assert best.node.get_content() == NOTES[2]


def test_the_llm_answers_a_chat(
    server: BackgroundServer, api_key: str, http: httpx.Client, calls: Any
) -> None:
    llm = OpenAI(
        model="gpt-4o-mini",
        api_base=server.base_url,
        api_key=api_key,
        max_retries=0,
        http_client=http,
    )
    answer = llm.chat([ChatMessage(role="user", content="Say hello.")])
    assert answer.message.content
    assert [c["api"] for c in calls()] == ["chat"]
