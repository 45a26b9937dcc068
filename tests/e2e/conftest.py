"""Clients of the session server, each in the test's own namespace (its API key)."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import ollama
import openai
import pytest

from mockserver.http.server import BackgroundServer


@pytest.fixture
def client(server: BackgroundServer, api_key: str) -> Iterator[openai.OpenAI]:
    """The official SDK, no retries (tests that want them make their own client)."""
    with openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0, timeout=10) as sdk:
        yield sdk


@pytest.fixture
def control(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    """The control API (``/__mockserver``) for the test's namespace."""
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {api_key}"}
    ) as http:
        yield http


@pytest.fixture
def claude(server: BackgroundServer, api_key: str) -> Iterator[anthropic.Anthropic]:
    """The official Anthropic SDK, no retries, its key in the test's namespace."""
    with anthropic.Anthropic(
        base_url=server.url, api_key=api_key, max_retries=0, timeout=10
    ) as sdk:
        yield sdk


@pytest.fixture
def llama(server: BackgroundServer, api_key: str) -> Iterator[ollama.Client]:
    """The official ``ollama`` client, its key (a bearer token) in the test's namespace."""
    with ollama.Client(
        host=server.url, headers={"Authorization": f"Bearer {api_key}"}, timeout=10
    ) as sdk:
        yield sdk
