"""The ``anthropic`` SDK against the plugin's server: ``mockserver.anthropic_client()`` and its
async twin (over the socket and in-process), ``on(...)`` rules answering it, the calls section
of a failure naming its calls, and the session option that points an import-time client at
the server (``--mockserver-env``, and its earlier name)."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from tests.plugin.conftest import block

Run = Callable[..., pytest.RunResult]

APP = """
import anthropic

client = anthropic.Anthropic()  # at import time: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL


def ask(question):
    message = client.messages.create(
        model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": question}]
    )
    return message.content[0].text
"""

TESTS = """
import asyncio

import anthropic
import pytest

import app

ASK = {"model": "claude-haiku-4-5", "max_tokens": 50}


def _user(text):
    return [{"role": "user", "content": text}]


@pytest.mark.parametrize("in_process", [False, True])
def test_the_handle_gives_a_client_in_its_namespace(mockserver, in_process):
    mockserver.on(last_user="capital of France?").reply(text="Paris.")
    mockserver.on(last_user="busy?").fail(preset="overloaded")
    client = mockserver.anthropic_client(in_process=in_process, max_retries=0)
    answer = client.messages.create(messages=_user("capital of France?"), **ASK)
    assert answer.content[0].text == "Paris."
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(messages=_user("busy?"), **ASK)
    assert [(c.api, c.rule, c.last_user) for c in mockserver.calls] == [
        ("messages", "inline-1", "capital of France?"),
        ("messages", "inline-2", "busy?"),
    ]


@pytest.mark.parametrize("in_process", [False, True])
def test_its_async_twin_streams(mockserver, in_process):
    mockserver.on(last_user="hi").reply(text="hello there")
    client = mockserver.async_anthropic_client(in_process=in_process)

    async def ask():
        async with client.messages.stream(messages=_user("hi"), **ASK) as stream:
            return "".join([text async for text in stream.text_stream])

    assert asyncio.run(ask()) == "hello there"


def test_the_import_time_client_talks_to_the_session_server(mockserver):
    mockserver.on(last_user="capital of Spain?").reply(text="Madrid.")
    assert app.ask("capital of Spain?") == "Madrid."
"""


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)


@pytest.mark.parametrize("option", ["--mockserver-env", "--mockserver-openai-env"])
def test_anthropic_clients_reach_the_tests_namespace(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-looking-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest("import app  # noqa: F401\n")
    result = run("-p", "no:randomly", option)
    result.assert_outcomes(passed=5)
    # Undone at the end: what was there before is back.
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-ant-real-looking-key"
    assert os.environ["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"


def test_the_ini_key_under_its_new_name_turns_it_on(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest("import app  # noqa: F401\n")
    pytester.makeini("[pytest]\nmockserver_env = true\n")
    run("-p", "no:randomly", "-k", "import_time").assert_outcomes(passed=1)


FAILING = """
def test_capital(mockserver):
    mockserver.on(id="france", last_user_contains="France").reply(text="Paris.")
    client = mockserver.anthropic_client()
    reply = client.messages.create(
        model="claude-haiku-4-5",
        max_tokens=50,
        messages=[{"role": "user", "content": "What is the capital of Spain?"}],
    )
    assert reply.content[0].text == "Madrid."
"""


def test_a_failure_reports_the_anthropic_calls(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(test_capital=FAILING)
    result = run()
    result.assert_outcomes(failed=1)
    header = next(line for line in result.outlines if line.startswith("1 request in namespace"))
    assert block(result.outlines, header) == [
        header,
        "  call 1: messages claude-haiku-4-5, last user 'What is the capital of Spain?' "
        "→ no rule matched (fallback reply), status 200",
        "    - rule 'france': last user message 'What is the capital of Spain?' does not contain "
        "'France'",
    ]
