"""``--mockserver-url``: the suite against an already running ``mockserver serve`` process,
one namespace per test, through the control API only."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

Run = Callable[..., pytest.RunResult]


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """A real ``mockserver serve`` on a free loopback port: its root URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", "serve", "--port=0", "--clock=frozen", "--seed=7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    try:
        assert first.startswith("mockserver listening on http://127.0.0.1:"), first
        yield first.split()[3].removesuffix("/v1")
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


TESTS = """
import openai
import pytest

ASK = {"model": "gpt-4o", "messages": [{"role": "user", "content": "weather?"}]}


def test_inline_rules_calls_and_hits(mockserver):
    assert mockserver.base_url == URL + "/v1"
    mockserver.on(last_user_contains="weather").replies("sunny", "rainy")
    client = mockserver.client()
    texts = [client.chat.completions.create(**ASK).choices[0].message.content for _ in "ab"]
    assert texts == ["sunny", "rainy"]
    assert mockserver.hits == {"inline-1": 2}
    assert [(c.seq, c.rule, c.status, c.last_user) for c in mockserver.calls] == [
        (1, "inline-1", 200, "weather?"), (2, "inline-1", 200, "weather?")
    ]


def test_each_test_has_its_own_namespace(mockserver):
    assert mockserver.calls == ()
    assert mockserver.scenario.name == "default"


def test_use_a_scenario_and_reset(mockserver):
    mockserver.use("name: greeter\\nrules: [{id: hi, when: {last_user: hi}, reply: {text: hello}}]")
    reply = mockserver.client().chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.choices[0].message.content == "hello"
    assert mockserver.scenario.name == "greeter"
    mockserver.reset()
    assert mockserver.scenario.name == "default"
    assert mockserver.calls == ()


def test_the_seed(mockserver):
    assert mockserver.seed == 7  # the server's
    mockserver.seed = 3
    assert mockserver.seed == 3


@pytest.mark.mockserver(strict=True)
def test_a_strict_miss(mockserver):
    mockserver.on(id="ask-weather", last_user_contains="weather").reply(text="sunny")
    with pytest.raises(openai.BadRequestError):
        mockserver.client(max_retries=0).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "a joke"}]
        )


@pytest.mark.mockserver(assert_all_used=True)
def test_an_unused_rule(mockserver):
    mockserver.on(last_user="never").reply(text="x")


def test_in_process_is_refused(mockserver):
    with pytest.raises(TypeError, match="needs the server in this process"):
        mockserver.client(in_process=True)
"""


def test_the_fixture_works_against_a_running_server(
    served: str, pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(test_remote=f"URL = {served!r}\n" + TESTS)
    result = run("--mockserver-url", served + "/")
    result.assert_outcomes(passed=5, failed=2)
    assert f"mockserver: tests run against {served} (--mockserver-url)" in result.outlines
    assert "  call 1: No rule of scenario 'inline' matched chat request (model 'gpt-4o', " in (
        "\n".join(result.outlines)
    )
    assert (
        "    - rule 'ask-weather': last user message 'a joke' does not contain 'weather'"
        in result.outlines
    )
    assert (
        "  rule 'inline-1' of scenario 'inline' (on(last_user='never')): never matched"
        in result.outlines
    )


def test_the_ini_key_and_the_import_time_variables(
    served: str, pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makeini(f"[pytest]\nmockserver_url = {served}\nmockserver_openai_env = true\n")
    pytester.makepyfile(
        test_env="""
        import os
        import openai

        client = openai.OpenAI()

        def test_module_client(mockserver):
            assert os.environ["OPENAI_BASE_URL"] == mockserver.base_url
            mockserver.on(last_user="hi").reply(text="from afar")
            reply = client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
            )
            assert reply.choices[0].message.content == "from afar"
        """
    )
    run().assert_outcomes(passed=1)


def test_an_unreachable_server_says_so(pytester: pytest.Pytester, run: Run) -> None:
    import socket

    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        pytester.makepyfile(test_x="def test_x(mockserver): pass")
        result = run("--mockserver-url", url)
    result.assert_outcomes(errors=1)
    assert f"mockserver at {url} cannot be reached" in result.stdout.str()


def test_a_url_that_is_not_one_is_a_usage_error(pytester: pytest.Pytester, run: Run) -> None:
    result = run("--mockserver-url", "localhost:8000")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--mockserver-url: expected the server's root URL, like http://127.0.0.1:8000" in (
        result.stderr.str()
    )
