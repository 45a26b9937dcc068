"""Clients made at import time (``--mockserver-openai-env`` / ini ``mockserver_openai_env``):
the OpenAI variables point at the session's server before collection, and are undone after."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import pytest

Run = Callable[..., pytest.RunResult]

APP = """
import openai

client = openai.OpenAI()  # at import time, as most application code does


def ask(question):
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": question}]
    )
    return reply.choices[0].message.content
"""

TESTS = """
import os

import app


def test_the_fixture_scripts_the_import_time_client(mockserver):
    mockserver.on(last_user="capital of France?").reply(text="Paris.")
    assert app.ask("capital of France?") == "Paris."
    assert [c.rule for c in mockserver.calls] == ["inline-1"]
    assert mockserver.api_key == os.environ["OPENAI_API_KEY"]
    print("SERVED", os.environ.get("PYTEST_XDIST_WORKER", "-"), app.client.base_url)


def test_a_test_without_the_fixture_gets_a_generated_reply():
    assert app.ask("capital of France?") != "Paris."  # the rule above was the other test's
    print("SERVED", os.environ.get("PYTEST_XDIST_WORKER", "-"), app.client.base_url)
"""

#: conftest.py files are imported before pytest_configure: the variables must be set by then.
CONFTEST = """
import app  # noqa: F401
"""


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner runs are not xdist workers, even when this suite's test runs in one."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makeconftest(CONFTEST)
    return pytester


def test_an_import_time_client_talks_to_the_session_server(
    project: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a developer may have set; the URL is a closed local port, so that even a broken
    # plugin could not send the key anywhere.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-real-looking-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    result = run("-s", "-p", "no:randomly", "--mockserver-openai-env")
    result.assert_outcomes(passed=2)
    served = re.findall(r"SERVED - (\S+)", result.stdout.str())
    assert len(served) == 2
    assert served[0] == served[1]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1/", served[0])
    header = [line for line in result.outlines if line.startswith("mockserver: OPENAI_")]
    assert header == [
        f"mockserver: OPENAI_BASE_URL={served[0].rstrip('/')} OPENAI_API_KEY=sk-mock-session"
    ]
    # Undone at the end: what was there before is back.
    assert os.environ["OPENAI_API_KEY"] == "sk-proj-real-looking-key"
    assert os.environ["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"


def test_the_ini_key_turns_it_on_and_a_port_can_be_fixed(
    project: pytest.Pytester, run: Run
) -> None:
    import socket

    with socket.socket() as probe:  # a port free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    project.makeini(f"[pytest]\nmockserver_openai_env = true\nmockserver_port = {port}\n")
    result = run("-s")
    result.assert_outcomes(passed=2)
    assert f"SERVED - http://127.0.0.1:{port}/v1/" in result.stdout.str()


def test_without_the_opt_in_the_import_time_client_has_no_key(
    project: pytest.Pytester, run: Run
) -> None:
    result = run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "openai.OpenAIError: Missing credentials." in result.stderr.str()


def test_each_xdist_worker_has_its_own_server(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_more="\n".join(
            f"def test_{n}(mockserver):\n"
            f"    mockserver.on(last_user='q{n}').reply(text='a{n}')\n"
            "    import app, os\n"
            f"    assert app.ask('q{n}') == 'a{n}'\n"
            f"    with open('served-{n}.txt', 'w') as f:\n"
            "        f.write(os.environ['PYTEST_XDIST_WORKER'] + ' ' + str(app.client.base_url))\n"
            for n in range(6)
        )
    )
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--mockserver-openai-env", "test_more.py"
    )
    result.assert_outcomes(passed=6)
    served = {tuple(p.read_text().split()) for p in project.path.glob("served-*.txt")}
    workers = {worker for worker, _ in served}
    assert workers == {"gw0", "gw1"}
    urls = {url for _, url in served}
    assert len(urls) == 2, served  # one server (one port) per worker


def test_a_port_that_is_no_port_is_a_usage_error(pytester: pytest.Pytester, run: Run) -> None:
    result = run("--mockserver-openai-env", "--mockserver-port", "70000")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--mockserver-port: expected a port number (0-65535), got 70000" in result.stderr.str()


def test_a_port_in_use_is_a_usage_error_that_says_what_to_do(
    pytester: pytest.Pytester, run: Run
) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("--mockserver-openai-env", f"--mockserver-port={port}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"mockserver: cannot listen on 127.0.0.1:{port} (Address already in use); "
        "choose another --mockserver-port, or 0 for any free port"
    ) in result.stderr.str()


def test_a_fixed_port_without_the_variables_serves_the_fixture(
    pytester: pytest.Pytester, run: Run
) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pytester.makepyfile(
        test_port=f"""
        def test_port(mockserver):
            assert mockserver.base_url == "http://127.0.0.1:{port}/v1"
            mockserver.on(last_user="hi").reply(text="hello")
            reply = mockserver.client().chat.completions.create(
                model="gpt-4o", messages=[{{"role": "user", "content": "hi"}}]
            )
            assert reply.choices[0].message.content == "hello"
        """
    )
    run(f"--mockserver-port={port}").assert_outcomes(passed=1)


def test_the_verdict_reads_the_counts_before_the_namespace_starts_afresh(
    project: pytest.Pytester, run: Run
) -> None:
    """The OpenAI variables' namespace was reset before the fixture's teardown read its
    counts: a test that used its rule failed a second time, as 'never matched'."""
    project.makepyfile(
        test_used="""
import pytest

import app


@pytest.mark.mockserver(assert_all_used=True)
def test_the_rule_is_used(mockserver):
    mockserver.on(last_user="hi").reply(text="hello")
    assert app.ask("hi") == "hello"
"""
    )
    result = run("test_used.py", "--mockserver-openai-env")
    result.assert_outcomes(passed=1)


AZURE_APP = """
import openai

client = openai.AzureOpenAI()  # endpoint, key and version from the environment


def ask(question):
    reply = client.chat.completions.create(
        model="my-deployment", messages=[{"role": "user", "content": question}]
    )
    return reply.choices[0].message.content
"""


def test_an_import_time_azure_client_talks_to_the_session_server(
    pytester: pytest.Pytester, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")  # a closed local port
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "real-looking-azure-key")
    pytester.makepyfile(
        azure_app=AZURE_APP,
        test_azure="""
import os

import azure_app


def test_it(mockserver):
    mockserver.on(last_user="hi").reply(text="hello")
    assert azure_app.ask("hi") == "hello"
    assert mockserver.calls[0].path == "/openai/deployments/my-deployment/chat/completions"
    assert os.environ["OPENAI_API_VERSION"] == "2024-10-21"
""",
    )
    pytester.makeconftest("import azure_app  # noqa: F401\n")
    result = run("--mockserver-openai-env")
    result.assert_outcomes(passed=1)
    assert any(line.startswith("mockserver: AZURE_OPENAI_ENDPOINT=") for line in result.outlines)
    assert os.environ["AZURE_OPENAI_ENDPOINT"] == "http://127.0.0.1:9"
    assert os.environ["AZURE_OPENAI_API_KEY"] == "real-looking-azure-key"
    assert "OPENAI_API_VERSION" not in os.environ


def test_the_env_fixture_points_azure_clients_too(pytester: pytest.Pytester, run: Run) -> None:
    pytester.makepyfile(
        test_fixture="""
import openai


def test_it(mockserver_env):
    mockserver_env.on(last_user="hi").reply(text="hello")
    client = openai.AzureOpenAI()
    reply = client.chat.completions.create(
        model="d", messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.choices[0].message.content == "hello"
"""
    )
    run().assert_outcomes(passed=1)
