"""google-genai against the plugin's server: ``mockserver.gemini_client()``, and the variables
the session option sets for a client made at import time."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

Run = Callable[..., pytest.RunResult]

APP = """
from google import genai

client = genai.Client()  # at import time: GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL
# Vertex AI's express mode: the key, and GOOGLE_VERTEX_BASE_URL
vertex = genai.Client(vertexai=True)


def ask(question, *, on=client):
    return on.models.generate_content(model="gemini-2.0-flash", contents=question).text
"""

TESTS = """
import asyncio

import app


def test_the_handle_gives_a_client_in_its_namespace(mockserver):
    mockserver.on(last_user="capital of France?").reply(text="Paris.")
    client = mockserver.gemini_client()
    answer = client.models.generate_content(model="gemini-2.5-flash", contents="capital of France?")
    assert answer.text == "Paris."
    assert [(c.api, c.rule) for c in mockserver.calls] == [("gemini", "inline-1")]


def test_its_async_side_works_too(mockserver):
    mockserver.on(last_user="hi").reply(text="hello")
    client = mockserver.gemini_client()

    async def ask():
        answer = await client.aio.models.generate_content(model="gemini-2.5-flash", contents="hi")
        return answer.text

    assert asyncio.run(ask()) == "hello"


def test_the_import_time_client_talks_to_the_session_server(mockserver):
    mockserver.on(last_user="capital of Spain?").reply(text="Madrid.")
    assert app.ask("capital of Spain?") == "Madrid."


def test_the_import_time_vertex_client_talks_to_it_too(mockserver):
    mockserver.on(last_user="capital of Italy?").reply(text="Rome.")
    assert app.ask("capital of Italy?", on=app.vertex) == "Rome."
    [call] = mockserver.calls
    assert call.path.startswith("/v1beta1/publishers/google/models/")


def test_mockserver_env_points_every_variable_at_the_tests_namespace(mockserver_env):
    import os

    from google import genai

    mockserver_env.on(last_user="capital of Peru?").reply(text="Lima.")
    assert os.environ["GEMINI_API_KEY"] == os.environ["GOOGLE_API_KEY"] == mockserver_env.api_key
    for vertexai in (False, True):
        with genai.Client(vertexai=vertexai) as client:
            assert app.ask("capital of Peru?", on=client) == "Lima."
"""


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)


def test_gemini_clients_reach_the_tests_namespace(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {
        "GOOGLE_API_KEY": "AIza-real-looking-key",
        "GEMINI_API_KEY": "AIza-another-real-looking-key",
        "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9",
        "GOOGLE_VERTEX_BASE_URL": "http://127.0.0.1:9",
    }
    for name, value in before.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest("import app  # noqa: F401\n")
    result = run("-p", "no:randomly", "--mockserver-openai-env")
    result.assert_outcomes(passed=5)
    assert {name: os.environ[name] for name in before} == before
