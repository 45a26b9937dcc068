"""langchain-openai: a tool loop, structured output (JSON Schema and JSON mode), and a small
RAG retrieval with ``OpenAIEmbeddings`` over an in-memory vector store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from mockserver.http.server import BackgroundServer

pytest.importorskip("langchain_openai")
from langchain_core.documents import Document
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI, OpenAIEmbeddings


class Person(BaseModel):
    name: str
    age: int


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client() as client:
        yield client


@pytest.fixture
def chat(server: BackgroundServer, api_key: str, http: httpx.Client) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini",
        base_url=server.base_url,
        api_key=api_key,  # type: ignore[arg-type]
        http_client=http,
        max_retries=0,
    )


@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"21 °C in {city}"


def test_a_tool_loop_converges(chat: ChatOpenAI) -> None:
    model = chat.bind_tools([get_weather])
    messages: list[Any] = [HumanMessage("What's the weather in Rome?")]
    for _ in range(3):
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            messages.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    assert isinstance(messages[-1].content, str)
    assert messages[-1].content
    assert len(messages) == 4  # question, call, result, answer


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_structured_output_is_valid(chat: ChatOpenAI, method: str) -> None:
    schema = json.dumps(Person.model_json_schema())
    prompt = "Ada Lovelace was 36." + (
        f" Answer in JSON matching this schema: {schema}" if method == "json_mode" else ""
    )
    person = chat.with_structured_output(Person, method=method).invoke(prompt)  # type: ignore[arg-type]
    assert isinstance(person, Person)


DOCUMENTS = [
    "The Eiffel Tower is in Paris, the capital of France.",
    "Koalas sleep up to twenty hours a day in Australia.",
    "Rust's borrow checker prevents data races at compile time.",
]


def test_a_vector_store_retrieves_the_right_document(
    server: BackgroundServer, api_key: str, http: httpx.Client
) -> None:
    embeddings = OpenAIEmbeddings(
        model="text-embedding-3-small",
        base_url=server.base_url,
        api_key=api_key,  # type: ignore[arg-type]
        http_client=http,
        check_embedding_ctx_length=False,  # else tiktoken fetches its encoding off the machine
    )
    store = InMemoryVectorStore(embeddings)
    store.add_documents([Document(page_content=text) for text in DOCUMENTS])
    (best,) = store.similarity_search("How long do koalas sleep?", k=1)
    assert best.page_content == DOCUMENTS[1]
    (best,) = store.similarity_search("What does the borrow checker prevent?", k=1)
    assert best.page_content == DOCUMENTS[2]
