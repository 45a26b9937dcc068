"""The session's server: started on first need, a failed start is loud and remembered."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from mockserver import server
from pytest_mockserver import MockServer
from pytest_mockserver.session import MockServerSession


@pytest.fixture
def session() -> Iterator[MockServerSession]:
    session = MockServerSession(seed=5)
    yield session
    session.close()


def test_nothing_starts_before_it_is_needed(session: MockServerSession) -> None:
    assert session.engine.settings.seed == 5
    assert session.engine.settings.clock == "frozen"
    assert not session.started
    assert session.base_url == session.url + "/v1"
    assert session.started


def test_a_failed_start_is_a_clear_error_and_is_remembered(
    session: MockServerSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    attempts: list[int] = []

    def fail(self: server.BackgroundServer) -> server.BackgroundServer:
        attempts.append(1)
        raise server.ServerStartError("mockserver did not start within 10s on http://x")

    monkeypatch.setattr(server.BackgroundServer, "start", fail)
    message = "mockserver could not start: mockserver did not start within 10s on http://x"
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        session.base_url  # noqa: B018
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        session.url  # noqa: B018
    assert attempts == [1]


def test_a_dead_server_thread_is_reported(session: MockServerSession) -> None:
    session.server().crash = OSError("boom")
    with pytest.raises(RuntimeError, match=r"^mockserver's server thread died: OSError\('boom'\)"):
        session.base_url  # noqa: B018


def test_keys_are_stable_per_test_and_unique_when_a_test_runs_again(
    session: MockServerSession,
) -> None:
    first = session.new_key("tests/test_x.py::test_y[a b]")
    assert first.startswith("sk-mock-test_y_a_b_-")
    assert session.new_key("tests/test_x.py::test_y[a b]") == first + "-1"
    assert MockServerSession().new_key("tests/test_x.py::test_y[a b]") == first


def test_without_the_sdk_client_says_what_to_install(
    mockserver: MockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "openai" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ModuleNotFoundError, match="need the openai package: pip install openai"):
        mockserver.client()
