"""The pytest plugin module, auto-loaded through the ``pytest11`` entry point.

It imports nothing heavy at load time (only :mod:`pytest_mockserver.options`): the server,
the engine and the SDK are imported inside the fixtures, so a suite that never asks for
``mockserver`` pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mockserver import options

if TYPE_CHECKING:
    from pytest_mockserver.handle import MockServer
    from pytest_mockserver.session import MockServerSession

SEED = pytest.StashKey[int]()
CALL_REPORT = pytest.StashKey[pytest.TestReport]()
MARKER_OPTIONS = pytest.StashKey[options.MarkerOptions]()


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", options.MARKER_DOC)
    config.stash[SEED] = options.resolve_seed(config)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistSeed(config.stash[SEED]), "mockserver-xdist")


class _XdistSeed:
    """Every xdist worker uses the controller's seed (which may have been drawn at random)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def pytest_configure_node(self, node: object) -> None:
        node.workerinput[options.WORKER_SEED] = self.seed  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str:
    seed = config.stash[SEED]
    return f"mockserver: seed {seed} (replay with --mockserver-seed={seed})"


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
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report


@pytest.fixture(scope="session")
def mockserver_session(pytestconfig: pytest.Config) -> Iterator[MockServerSession]:
    """The session's mockserver (one per xdist worker): ``url``, ``base_url``, ``engine``."""
    from pytest_mockserver.session import MockServerSession

    recorders = None
    if options.record_mode(pytestconfig) != "none":  # cassettes may record: a proxy in front
        from mockserver.record.recorder import Recorders

        recorders = Recorders()
    session = MockServerSession(
        seed=pytestconfig.stash[SEED],
        scenario_dirs=options.scenario_dirs(pytestconfig),
        in_process=options.in_process(pytestconfig),
        recorders=recorders,
    )
    yield session
    session.close()


@pytest.fixture
def mockserver(
    request: pytest.FixtureRequest, mockserver_session: MockServerSession
) -> Iterator[MockServer]:
    """This test's own namespace on the session's mockserver (see ``MockServer``)."""
    from pytest_mockserver.handle import open_handle

    item = request.node
    marker = item.stash.get(MARKER_OPTIONS, None)
    handle = open_handle(
        mockserver_session, nodeid=item.nodeid, options=marker, test_dir=Path(item.path).parent
    )
    cassette = None
    if marker is not None and marker.cassette:  # record & replay (cassettes.py)
        from pytest_mockserver import cassettes

        mode = options.record_mode(request.config)
        cassette = cassettes.start(handle, item, given=marker.cassette, mode=mode)
    yield handle
    report = item.stash.get(CALL_REPORT, None)
    try:
        found = handle.verdict(check_unused=report is not None and report.passed)
        if cassette is not None:
            cassette.stop(handle)
            found = "\n".join(filter(None, [found, cassette.misses(handle)])) or None
    finally:
        handle.close()
    if found is not None:
        pytest.fail(found, pytrace=False)


@pytest.fixture
def mockserver_env(mockserver: MockServer, monkeypatch: pytest.MonkeyPatch) -> MockServer:
    """``mockserver``, with ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` pointing at it, for code
    that builds its own client (undone after the test)."""
    monkeypatch.setenv("OPENAI_BASE_URL", mockserver.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", mockserver.api_key)
    return mockserver
