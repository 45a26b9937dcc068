"""Helpers for running pytest inside pytest (``pytester`` is enabled in pyproject's addopts:
``pytest_plugins`` is only allowed in the top-level conftest)."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpcore  # noqa: F401 - httpx imports it on first use: once, before pytester's snapshot
import ollama  # noqa: F401
import openai  # noqa: F401
import pytest

# Imported here, before pytester snapshots sys.modules, so that in-process inner runs reuse
# them instead of importing them afresh every time.
import mockserver.http.app
import mockserver.http.proxy
import mockserver.http.routes.ollama
import mockserver.http.routes.ollama_models
import mockserver.http.server
import mockserver.record.cassette
import mockserver.record.nearest  # noqa: F401
import pytest_mockserver.transport  # noqa: F401
from pytest_mockserver.handle import MockServer
from pytest_mockserver.session import MockServerSession

#: Every inner run is as strict as our own suite. pytest marks the modules of a plugin's
#: distribution (``mockserver`` too) for assertion rewriting, and warns that it cannot when,
#: as in an in-process run, they were imported already. Hypothesis's plugin is left out: it
#: imports (and rewrites) all of hypothesis in every run, for nothing here.
STRICT = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "--strict-markers",
    "-W",
    "error",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
)


@pytest.fixture
def run(pytester: pytest.Pytester) -> Callable[..., pytest.RunResult]:
    """``run(*args)``: pytest in-process in the pytester directory, strictly."""

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_inprocess(*STRICT, *args)

    return run


def block(lines: list[str], first: str) -> list[str]:
    """The lines of ``lines`` from the one equal to ``first`` up to the next blank or
    section line (what one teardown report says)."""
    start = lines.index(first)
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[start:end]


def failures(result: pytest.RunResult) -> list[str]:
    """The titles of the run's error and failure sections, in the order reported."""
    return re.findall(r"^_+ (.+?) _+$", result.stdout.str(), flags=re.MULTILINE)


@pytest.fixture(scope="session", autouse=True)
def _imports_warmed(mockserver_session: MockServerSession) -> None:
    """Serve a request of each kind once, so that whatever a request imports lazily (SDK
    resources, uvicorn protocols, the SDK's numpy for embeddings…) is imported before pytester
    snapshots ``sys.modules``; an in-process inner run would otherwise import it again, and
    drop it, every time (and a later test of the same worker would import it a second time)."""
    handle = MockServer(mockserver_session, api_key="sk-mock-warm-up")
    ask = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    for client in (handle.client(), handle.client(in_process=True)):
        client.chat.completions.create(**ask)  # type: ignore[call-overload]
        list(client.chat.completions.create(stream=True, **ask))  # type: ignore[call-overload]
        client.embeddings.create(model="text-embedding-3-small", input="hi")  # numpy, if found
    handle.close()
