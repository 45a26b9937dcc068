"""Cassettes in a pytest run: record once through the upstream, replay in CI with no upstream
at all, and a test whose request was never recorded fails naming the nearest recording."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mockserver.http.server import BackgroundServer
from tests.support.recording import start_upstream

Run = Callable[..., pytest.RunResult]

AGENT = """
import pytest

@pytest.mark.mockserver(cassette="greeting")
def test_greets(mockserver):
    client = mockserver.client(max_retries=0)
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": QUESTION}]
    )
    print("said:", reply.id, reply.choices[0].message.content)
"""


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[BackgroundServer]:
    (tmp_path / "upstream").mkdir()
    server = start_upstream(tmp_path / "upstream", seed=7)
    yield server
    server.stop()


def said(result: pytest.RunResult) -> list[str]:
    return re.findall(r"said: .*", result.stdout.str())


def test_a_cassette_recorded_once_replays_without_an_upstream(
    pytester: pytest.Pytester, run: Run, upstream: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent='QUESTION = "hello"\n' + AGENT)
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-never-written-0001")
    recorded = run("-s", "--mockserver-record-mode=once")
    recorded.assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_agent" / "greeting.yaml"
    assert cassette.is_file()
    for file in cassette.parent.rglob("*"):
        if file.is_file():
            assert "sk-real-key" not in file.read_text()
    monkeypatch.delenv("MOCKSERVER_UPSTREAM_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    upstream.stop()  # CI: nothing to reach
    replayed = run("-s")  # the default mode, none: replay only
    replayed.assert_outcomes(passed=1)
    assert said(replayed) == said(recorded) != []


def test_in_mode_none_an_unrecorded_request_fails_the_test_with_the_nearest_recording(
    pytester: pytest.Pytester, run: Run, upstream: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent='QUESTION = "hello"\n' + AGENT)
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.base_url)
    run("--mockserver-record-mode=once").assert_outcomes(passed=1)
    pytester.makepyfile(test_agent='QUESTION = "hello there"\n' + AGENT)
    monkeypatch.delenv("MOCKSERVER_UPSTREAM_URL")
    result = run("-o", "mockserver_record_mode=none")
    result.assert_outcomes(failed=1, errors=1)  # the SDK's 400, then the fixture's verdict
    output = result.stdout.str()
    assert "last user message 'hello there'" in output
    assert "Nearest recording: rule 'chat-001'" in output
    assert "--mockserver-record-mode=new_episodes" in output


def test_new_episodes_records_what_the_cassette_lacks(
    pytester: pytest.Pytester, run: Run, upstream: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent='QUESTION = "hello"\n' + AGENT)
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.base_url)
    run("--mockserver-record-mode=once").assert_outcomes(passed=1)
    pytester.makepyfile(test_agent='QUESTION = "and now?"\n' + AGENT)
    run("--mockserver-record-mode=new_episodes").assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_agent" / "greeting.yaml"
    assert cassette.read_text().count("last_user:") == 2


def test_a_missing_cassette_in_mode_none_says_how_to_record_it(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makepyfile(test_agent='QUESTION = "hello"\n' + AGENT)
    result = run()
    result.assert_outcomes(errors=1)
    assert "greeting.yaml does not exist and record mode none only replays" in result.stdout.str()
