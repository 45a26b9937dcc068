"""Shared fixtures: no test may reach the real API, and servers are real uvicorn on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from mockserver.http.app import create_app
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.support.redis_server import RedisServer, find_redis_server

# Hypothesis's deadline is a wall-clock assertion: a loaded CI machine (or coverage) fails it
# on code that is correct. Tests assert behaviour, never time.
settings.register_profile("mockserver", deadline=None)
settings.load_profile("mockserver")

#: The environment each family's official client reads its key, endpoint or region from.
PROVIDER_ENV = ("OPENAI_", "ANTHROPIC_", "GOOGLE_", "GEMINI_", "AWS_", "AZURE_OPENAI_", "OLLAMA_")


@pytest.fixture(autouse=True)
def _no_real_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Strip every provider's variables (``OPENAI_*``, ``ANTHROPIC_*``, ``GOOGLE_*``,
    ``GEMINI_*``, ``AWS_*``, ``AZURE_OPENAI_*``, ``OLLAMA_*``) so nothing here can ever talk to a
    real API with a real key."""
    for name in list(os.environ):
        if name.startswith(PROVIDER_ENV):
            monkeypatch.delenv(name)


def start_server(**settings: object) -> BackgroundServer:
    options: dict[str, object] = {"port": 0, "clock": "frozen", **settings}
    app = create_app(Settings(**options))
    return BackgroundServer(app).start()


@pytest.fixture(scope="session")
def server() -> Iterator[BackgroundServer]:
    """One real server for the session; tests isolate themselves with their own API key."""
    srv = start_server(seed=1234)
    yield srv
    srv.stop()


@pytest.fixture
def api_key(request: pytest.FixtureRequest) -> str:
    """A namespace of its own for every test."""
    return "sk-test-" + request.node.nodeid


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real ``redis-server`` for the session (skips where the binary is absent)."""
    binary = find_redis_server()
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = RedisServer(binary).start()
    yield server
    server.stop()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
