"""The pytest plugin module, auto-loaded through the ``pytest11`` entry point.

It imports nothing heavy at load time (only :mod:`pytest_mockserver.options`): the server,
the engine and the SDK are imported inside the fixtures, so a suite that never asks for
``mockserver`` pays nothing for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mockserver import options

if TYPE_CHECKING:
    from pytest_mockserver.env import ClientEnv  # noqa: F401 - the stash key's type
    from pytest_mockserver.guard import NetworkGuard
    from pytest_mockserver.handle import MockServer
    from pytest_mockserver.session import MockServerSession

SEED = pytest.StashKey[int]()
CALL_REPORT = pytest.StashKey[pytest.TestReport]()
MARKER_OPTIONS = pytest.StashKey[options.MarkerOptions]()
#: The test's handle, while its ``mockserver`` fixture is set up.
HANDLE = pytest.StashKey["MockServer"]()
#: The verdict given with the call phase's report: (whether unused rules were checked, it).
VERDICT = pytest.StashKey[tuple[bool, str | None]]()


#: The session's server (built on first need), the OpenAI variables set, the network guard.
SESSION = pytest.StashKey["MockServerSession"]()
ENV = pytest.StashKey["ClientEnv"]()
GUARD = pytest.StashKey["NetworkGuard"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before any conftest or test module is imported: the OpenAI variables, if asked for."""
    if options.client_env(early_config):
        from pytest_mockserver.env import ClientEnv

        # xdist's controller imports the conftest files too, but runs no test: its clients
        # get a key and a port that refuses (each worker sets the variables anew).
        early_config.stash[ENV] = ClientEnv.install(
            port=options.port(early_config),
            external_url=options.url(early_config),
            serve=not options.xdist_controller(early_config),
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", options.MARKER_DOC)
    config.stash[SEED] = options.resolve_seed(config)
    options.port(config)  # a bad port is a usage error now, not in the first test
    options.url(config)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistSeed(config.stash[SEED]), "mockserver-xdist")


class _XdistSeed:
    """Every xdist worker uses the controller's seed (which may have been drawn at random)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def pytest_configure_node(self, node: object) -> None:
        node.workerinput[options.WORKER_SEED] = self.seed  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION, None)
    if session is not None:
        session.close()
        del config.stash[SESSION]
    env = config.stash.get(ENV, None)
    if env is not None:
        env.undo()
        del config.stash[ENV]


def pytest_report_header(config: pytest.Config) -> list[str]:
    seed = config.stash[SEED]
    lines = [f"mockserver: seed {seed} (replay with --mockserver-seed={seed})"]
    url = options.url(config)
    if url is not None:
        lines.append(f"mockserver: tests run against {url} (--mockserver-url)")
    env = config.stash.get(ENV, None)
    if env is not None and not env.serving:
        lines.append(
            "mockserver: OPENAI_BASE_URL and OPENAI_API_KEY (and Azure's): each xdist worker's own"
        )
    elif env is not None:
        lines.append(f"mockserver: OPENAI_BASE_URL={env.base_url} OPENAI_API_KEY={env.api_key}")
        lines.append(f"mockserver: AZURE_OPENAI_ENDPOINT={env.base_url.removesuffix('/v1')}")
        lines.append(
            f"mockserver: AWS_ENDPOINT_URL_BEDROCK_RUNTIME={env.base_url.removesuffix('/v1')}"
        )
    return lines


def session_of(config: pytest.Config) -> MockServerSession:
    """The session's server: one per process (per xdist worker), built on first need."""
    session = config.stash.get(SESSION, None)
    if session is None:
        url = options.url(config)
        seed, dirs = config.stash[SEED], options.scenario_dirs(config)
        in_process = options.in_process(config)
        if url is not None:
            from pytest_mockserver.remote import RemoteSession

            session = RemoteSession(url, seed=seed, scenario_dirs=dirs, in_process=in_process)
        else:
            from pytest_mockserver.session import MockServerSession

            env = config.stash.get(ENV, None)
            recorders = None
            if options.record_mode(config) != "none":  # cassettes may record: a proxy in front
                from mockserver.record.recorder import Recorders

                recorders = Recorders()
            session = MockServerSession(
                seed=seed,
                scenario_dirs=dirs,
                in_process=in_process,
                port=options.port(config),
                sock=env.take_socket() if env is not None else None,
                recorders=recorders,
            )
        config.stash[SESSION] = session
    return session


def _guarded(item: pytest.Item) -> bool:
    """Whether the network guard is on for this test: where mockserver is in use (the test
    asks for the fixture, or the OpenAI variables point every client at it), unless turned
    off for the run or, by the marker, for the test."""
    if not options.network_guard(item.config):
        return False
    in_use = ENV in item.config.stash or "mockserver" in getattr(item, "fixturenames", ())
    if not in_use:
        return False
    try:
        return not options.marker_options(item).allow_network
    except options.MarkerError:
        return True  # reported by pytest_runtest_setup


def _guard(config: pytest.Config) -> NetworkGuard:
    guard = config.stash.get(GUARD, None)
    if guard is None:
        from pytest_mockserver.guard import NetworkGuard

        guard = config.stash[GUARD] = NetworkGuard()
        url = options.url(config)
        if url is not None:
            from urllib.parse import urlsplit

            host = urlsplit(url).hostname
            if host is not None:
                guard.allow(host)
    return guard


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """The guard is on for the whole of a guarded test: setup, call and teardown."""
    env = item.config.stash.get(ENV, None)
    if env is not None and options.url(item.config) is None:
        with contextlib.suppress(RuntimeError):  # the fixture reports a failed start
            session_of(item.config).server()  # the variables' socket is served from now on
    if not _guarded(item):
        return (yield)
    guard = _guard(item.config)
    guard.start()
    try:
        return (yield)
    finally:
        guard.stop()
        guard.take()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, object, object]:
    """After the test's fixtures are torn down (the ``mockserver`` fixture's verdict reads the
    namespace's counts), the OpenAI variables' namespace starts afresh for the next test."""
    try:
        return (yield)
    finally:
        _reset_env_namespace(item)


def _reset_env_namespace(item: pytest.Item) -> None:
    env = item.config.stash.get(ENV, None)
    session = item.config.stash.get(SESSION, None)
    if env is not None and session is not None and options.url(item.config) is None:
        session.engine.store.reset(env.api_key)  # tests that never asked for the fixture


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(options.MARKER) is None:
        return
    try:
        item.stash[MARKER_OPTIONS] = options.marker_options(item)
    except options.MarkerError as exc:
        problem = str(exc)
    else:
        return
    pytest.fail(problem, pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    guard = item.config.stash.get(GUARD, None)
    refused = guard.take() if guard is not None and guard.started else []
    if refused:
        from pytest_mockserver.guard import failure

        text = failure(refused)  # said once: where the failure starts (not in a section too)
        report.outcome = "failed"
        report.longrepr = text if report.longrepr is None else f"{text}\n\n{report.longrepr}"
    if report.when == "call":
        item.stash[CALL_REPORT] = report
        handle = item.stash.get(HANDLE, None)
        if handle is not None:
            _judge(item, report, handle)
    return report


def _judge(item: pytest.Item, report: pytest.TestReport, handle: MockServer) -> None:
    """The verdict, given once, with the call phase: a test that passed but broke a rule of
    the scenario fails here (not as an error at teardown besides); one that failed carries the
    verdict and the "mockserver calls" section with its own failure."""
    from pytest_mockserver.report import SECTION, calls_section

    check_unused = report.passed
    found = handle.verdict(check_unused=check_unused)
    item.stash[VERDICT] = (check_unused, found)
    if found is not None and report.passed:
        report.outcome = "failed"
        report.longrepr = found
    elif found is not None:
        report.sections.append(("mockserver verdict", found))
    if report.failed:
        text = calls_section(handle.calls, namespace=handle.api_key)
        report.sections.append((SECTION, text))
        item.user_properties.append((SECTION, text))


@pytest.fixture(scope="session")
def mockserver_session(pytestconfig: pytest.Config) -> MockServerSession:
    """The session's mockserver (one per xdist worker): ``url``, ``base_url``, ``engine``."""
    return session_of(pytestconfig)


@pytest.fixture
def mockserver(
    request: pytest.FixtureRequest, mockserver_session: MockServerSession
) -> Iterator[MockServer]:
    """This test's own namespace on the session's mockserver (see ``MockServer``)."""
    from pytest_mockserver.handle import open_handle

    item = request.node
    env = item.config.stash.get(ENV, None)
    marker = item.stash.get(MARKER_OPTIONS, None)
    handle = open_handle(
        mockserver_session,
        nodeid=item.nodeid,
        options=marker,
        test_dir=Path(item.path).parent,
        # With the OpenAI variables set, the fixture acts on the namespace their key selects.
        api_key=env.api_key if env is not None else None,
    )
    cassette = None
    if marker is not None and marker.cassette:  # record & replay (cassettes.py)
        from pytest_mockserver import cassettes

        mode = options.record_mode(request.config)
        environ = env.shell() if env is not None else dict(os.environ)
        cassette = cassettes.start(handle, item, given=marker.cassette, mode=mode, environ=environ)
    item.stash[HANDLE] = handle
    yield handle
    del item.stash[HANDLE]
    report = item.stash.get(CALL_REPORT, None)
    given = item.stash.get(VERDICT, None)
    check_unused = given[0] if given is not None else report is not None and report.passed
    try:
        found = handle.verdict(check_unused=check_unused)
        if cassette is not None:  # a request the cassette never recorded (mode none)
            cassette.stop(handle)
            found = "\n".join(filter(None, [found, cassette.misses(handle)])) or None
    finally:
        handle.close()
    # Only what happened after the call phase's verdict (in fixtures' teardowns) is new.
    if found is not None and (given is None or found != given[1]):
        pytest.fail(found, pytrace=False)


@pytest.fixture
def mockserver_env(mockserver: MockServer, monkeypatch: pytest.MonkeyPatch) -> MockServer:
    """``mockserver``, with ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (and google-genai's
    base URLs and keys: ``env.google_variables``, Azure's ``AZURE_OPENAI_ENDPOINT``,
    ``AZURE_OPENAI_API_KEY``, ``OPENAI_API_VERSION``, anthropic's ``ANTHROPIC_BASE_URL`` and
    ``ANTHROPIC_API_KEY``, ollama's ``OLLAMA_HOST`` and ``OLLAMA_API_KEY``, and boto3's:
    ``env.aws_variables``) pointing at it, for code that builds its own client (undone after
    the test)."""
    from pytest_mockserver.env import (
        Variables,
        aws_variables,
        azure_variables,
        google_variables,
        ollama_variables,
    )

    monkeypatch.setenv("OPENAI_BASE_URL", mockserver.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", mockserver.api_key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", mockserver.root_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", mockserver.api_key)
    variables: Variables = {
        **google_variables(mockserver.root_url, mockserver.api_key),
        **azure_variables(mockserver.base_url, mockserver.api_key),
        **ollama_variables(mockserver.root_url, mockserver.api_key),
        **aws_variables(mockserver.root_url, mockserver.api_key),
    }
    for name, value in variables.items():
        if value is None:
            monkeypatch.delenv(name)
        else:
            monkeypatch.setenv(name, value)
    return mockserver
