"""The ``ollama`` client against the plugin's server: ``mockserver.ollama_client()``, its async
twin, ``mockserver_env``, and the variables the session option sets for a client made at
import time (``OLLAMA_HOST``, and ``OLLAMA_API_KEY``, which the client sends as a bearer
token)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

Run = Callable[..., pytest.RunResult]

APP = """
import ollama

client = ollama.Client()  # at import time: OLLAMA_HOST and OLLAMA_API_KEY


def ask(question):
    return client.chat(model="llama3.2", messages=[{"role": "user", "content": question}])
"""

TESTS = """
import asyncio

import ollama
import pytest

import app


@pytest.fixture(scope="module", autouse=True)
def _close_the_apps_client():
    yield
    app.client.close()


def test_the_handle_gives_a_client_in_its_namespace(mockserver):
    mockserver.on(last_user="capital of France?").reply(text="Paris.")
    client = mockserver.ollama_client()
    question = [{"role": "user", "content": "capital of France?"}]
    answer = client.chat(model="llama3.2", messages=question)
    assert answer.message.content == "Paris."
    assert [(c.api, c.rule) for c in mockserver.calls] == [("ollama_chat", "inline-1")]


def test_the_async_client_works_too(mockserver):
    mockserver.on(last_user="hi").reply(text="hello")
    client = mockserver.async_ollama_client()

    async def ask():
        parts = [part async for part in await client.chat(
            model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True
        )]
        return "".join(part.message.content for part in parts)

    assert asyncio.run(ask()) == "hello"


def test_a_scripted_error_raises_response_error(mockserver):
    mockserver.on(last_user="busy").fail("rate_limited")
    with pytest.raises(ollama.ResponseError) as raised:
        mockserver.ollama_client().generate(model="llama3.2", prompt="busy")
    assert raised.value.status_code == 429


def test_the_import_time_client_talks_to_the_session_server(mockserver):
    mockserver.on(last_user="capital of Spain?").reply(text="Madrid.")
    assert app.ask("capital of Spain?").message.content == "Madrid."


def test_mockserver_env_points_a_new_client_at_the_test(mockserver_env):
    mockserver_env.on(last_user="who?").reply(text="me")
    with ollama.Client() as client:
        answer = client.chat(model="llama3.2", messages=[{"role": "user", "content": "who?"}])
    assert answer.message.content == "me"
"""


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)


def test_ollama_clients_reach_the_tests_namespace(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest("import app  # noqa: F401\n")
    result = run("-p", "no:randomly", "--mockserver-openai-env")
    result.assert_outcomes(passed=5)
    assert os.environ["OLLAMA_HOST"] == "http://127.0.0.1:9"
    assert "OLLAMA_API_KEY" not in os.environ
