"""The session's server: started on first need, a failed start is loud and remembered; its
scenarios: where each name comes from, and how a broken one is reported."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator

import pytest

from mockserver.http import server
from mockserver.scenario.library import builtin_names
from pytest_mockserver import MockServer
from pytest_mockserver.session import MockServerSession

Run = Callable[..., pytest.RunResult]


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


def test_a_broken_scenario_given_to_use_fails_at_the_test_line(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.makefile(".yaml", broken="name: broken\nrules:\n  - reply: {txt: hi}\n")
    pytester.makepyfile(
        test_use="""
        def test_file(mockserver):
            mockserver.use("broken.yaml")

        def test_text(mockserver):
            mockserver.use("rules:\\n  - reply: {txt: hi}\\n")
        """
    )
    result = run()
    result.assert_outcomes(failed=2)
    unknown = "rule #1, field 'rules[0].reply.txt': unknown key 'txt' (did you mean 'text'?)"
    for call, error in [
        ('mockserver.use("broken.yaml")', f"{pytester.path / 'broken.yaml'}:3:13: {unknown}"),
        ('mockserver.use("rules:\\n  - reply: {txt: hi}\\n")', f"<scenario text>:2:13: {unknown}"),
    ]:
        start = result.outlines.index(f">       {call}")
        assert result.outlines[start + 1 : start + 3] == [
            f"E       mockserver.errors.ScenarioError: {error}",
            "",
        ]
    assert not [line for line in result.outlines if "pytest_mockserver" in line]
    assert not [line for line in result.outlines if "loader.py" in line]


UNKNOWN = """
import pytest

@pytest.mark.mockserver(scenario="nope")
def test_unknown(mockserver):
    pass
"""


def test_an_unknown_name_says_where_each_known_name_comes_from(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "greeter.yaml").write_text("rules: []\n")
    pytester.makepyfile(test_unknown=UNKNOWN)
    builtins = ", ".join(builtin_names())
    marker = "mockserver: @pytest.mark.mockserver(scenario=...): no scenario named 'nope'"

    pytester.makeini("[pytest]\nmockserver_scenarios = scenarios\n")
    from_ini = run()
    from_ini.assert_outcomes(errors=1)
    assert (
        f"{marker} (from mockserver_scenarios in tox.ini: greeter; built-in: {builtins})"
        in from_ini.outlines
    )

    (pytester.path / "tox.ini").unlink()
    from_option = run("--mockserver-scenarios", "scenarios")
    assert f"{marker} (from --mockserver-scenarios: greeter; built-in: {builtins})" in (
        from_option.outlines
    )

    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nmockserver_scenarios = ["scenarios"]\n')
    overridden = run("-o", "mockserver_scenarios=scenarios")
    assert f"{marker} (from -o mockserver_scenarios: greeter; built-in: {builtins})" in (
        overridden.outlines
    )
    from_pyproject = run()
    assert (
        f"{marker} (from mockserver_scenarios in pyproject.toml: greeter; built-in: {builtins})"
        in from_pyproject.outlines
    )


def test_a_broken_scenario_directory_names_where_it_was_given(
    pytester: pytest.Pytester, run: Run
) -> None:
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "bad.yaml").write_text("rules: [{reply: {txt: hi}}]\n")
    pytester.makeini("[pytest]\nmockserver_scenarios = scenarios\n")
    pytester.makepyfile(test_any="def test_any(mockserver): pass")
    result = run()
    result.assert_outcomes(errors=1)
    assert (
        f"mockserver: mockserver_scenarios in tox.ini: {pytester.path / 'scenarios/bad.yaml'}"
        ":1:18: rule #1, field 'rules[0].reply.txt': unknown key 'txt' (did you mean 'text'?)"
    ) in result.outlines
    missing = run("--mockserver-scenarios", "missing")
    assert (
        f"mockserver: --mockserver-scenarios: {pytester.path / 'missing'}: no such directory"
        in missing.outlines
    )
