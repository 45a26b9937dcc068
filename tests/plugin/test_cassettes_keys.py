"""The keys a cassette is recorded with: each provider's calls go upstream with that provider's
own key from the shell (``ANTHROPIC_API_KEY``, ``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``,
``AZURE_OPENAI_API_KEY``, ``OPENAI_API_KEY``), in the header its SDK sends it in, unless
``MOCKSERVER_UPSTREAM_KEY`` replaces them all; none is written in the cassette."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.http.app import create_app
from mockserver.http.routes.base import api_key_of
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from pytest_mockserver.cassettes import upstream_keys

Run = Callable[..., pytest.RunResult]

#: Every variable a key could come from: unset around each test (the shell's are not ours).
KEY_VARIABLES = (
    "MOCKSERVER_UPSTREAM_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
)

ANTHROPIC = """
    client = mockserver.anthropic_client(max_retries=0)
    client.messages.create(
        model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    )
"""
GEMINI = """
    client = mockserver.gemini_client()
    client.models.generate_content(model="gemini-2.5-flash", contents="hi")
"""
AZURE = """
    client = mockserver.azure_client(max_retries=0)
    client.chat.completions.create(model="story", messages=[{"role": "user", "content": "hi"}])
"""
OPENAI = """
    client = mockserver.client(max_retries=0)
    client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    )
"""


def agent(*calls: str) -> str:
    return (
        "import pytest\n\n"
        '@pytest.mark.mockserver(cassette="keyed")\n'
        "def test_calls(mockserver):\n" + "".join(calls)
    )


class Tap:
    """ASGI middleware: the path and headers of every request the upstream is sent."""

    def __init__(self, app: ASGIApp, *, seen: list[tuple[str, dict[str, str]]]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/__mockserver"):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            self.seen.append((scope["path"], headers))
        await self.app(scope, receive, send)


@dataclass
class Upstream:
    server: BackgroundServer
    seen: list[tuple[str, dict[str, str]]]

    def keys(self) -> list[str | None]:
        """The key each request the upstream was sent carried, in whichever header."""
        return [api_key_of(headers) for _, headers in self.seen]

    def headers(self, name: str) -> list[str | None]:
        """What each request the upstream was sent carried in header ``name``."""
        return [headers.get(name) for _, headers in self.seen]


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[Upstream]:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    # no replay lane: it would answer before the middleware that sees the headers
    app = create_app(Settings(port=0, seed=7, clock="frozen", replay=False))
    seen: list[tuple[str, dict[str, str]]] = []
    app.add_middleware(Tap, seen=seen)
    server = BackgroundServer(app).start()
    yield Upstream(server, seen)
    server.stop()


def written(pytester: pytest.Pytester) -> str:
    folder = pytester.path / "cassettes" / "test_agent"
    text = "".join(p.read_text() for p in folder.rglob("*") if p.is_file())
    assert "rules:" in text  # something was recorded
    return text


@pytest.mark.parametrize(
    ("calls", "variable", "header", "root"),
    [  # the header the SDK sends its key in (Anthropic's: a bearer token, since 2.x)
        (ANTHROPIC, "ANTHROPIC_API_KEY", None, False),
        (GEMINI, "GEMINI_API_KEY", "x-goog-api-key", False),
        (GEMINI, "GOOGLE_API_KEY", "x-goog-api-key", False),
        (AZURE, "AZURE_OPENAI_API_KEY", "api-key", True),
    ],
    ids=["anthropic", "gemini", "google", "azure"],
)
def test_a_providers_cassette_is_recorded_with_its_own_key_from_the_shell(
    pytester: pytest.Pytester,
    run: Run,
    upstream: Upstream,
    monkeypatch: pytest.MonkeyPatch,
    calls: str,
    variable: str,
    header: str | None,
    root: bool,
) -> None:
    pytester.makepyfile(test_agent=agent(calls))
    server = upstream.server
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", server.url if root else server.base_url)
    key = f"real-{variable.lower()}-0001"
    monkeypatch.setenv(variable, key)
    run("--mockserver-record-mode=once").assert_outcomes(passed=1)
    assert upstream.keys() == [key]
    if header is not None:
        assert upstream.headers(header) == [key]
    assert key not in written(pytester)


def test_with_mockserver_env_the_key_is_the_shells_not_the_mocks(
    pytester: pytest.Pytester, run: Run, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=agent(ANTHROPIC))
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key-0001")
    run("--mockserver-record-mode=once", "--mockserver-env").assert_outcomes(passed=1)
    assert upstream.keys() == ["sk-ant-real-key-0001"]
    assert "sk-ant-real-key" not in written(pytester)


def test_each_provider_gets_its_own_key_in_one_cassette(
    pytester: pytest.Pytester, run: Run, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=agent(OPENAI, ANTHROPIC))
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-real-0001")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-0001")
    run("--mockserver-record-mode=once").assert_outcomes(passed=1)
    assert [path for path, _ in upstream.seen] == ["/v1/chat/completions", "/v1/messages"]
    assert upstream.keys() == ["sk-openai-real-0001", "sk-ant-real-0001"]
    text = written(pytester)
    assert "sk-openai-real" not in text
    assert "sk-ant-real" not in text


def test_mockserver_upstream_key_replaces_every_providers_own(
    pytester: pytest.Pytester, run: Run, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=agent(OPENAI, ANTHROPIC))
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_URL", upstream.server.base_url)
    monkeypatch.setenv("MOCKSERVER_UPSTREAM_KEY", "one-upstream-key-0001")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-real-0001")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-0001")
    run("--mockserver-record-mode=once").assert_outcomes(passed=1)
    assert upstream.keys() == ["one-upstream-key-0001", "one-upstream-key-0001"]
    text = written(pytester)
    for secret in ("one-upstream-key", "sk-openai-real", "sk-ant-real"):
        assert secret not in text


def test_upstream_keys_are_read_as_each_sdk_reads_them() -> None:
    shell = {
        "OPENAI_API_KEY": "sk-openai",
        "ANTHROPIC_API_KEY": "",  # empty: unset, as the SDKs take it
        "GEMINI_API_KEY": "gemini-key",
        "GOOGLE_API_KEY": "google-key",  # google-genai prefers it
        "AZURE_OPENAI_API_KEY": "azure-key",
        "OLLAMA_API_KEY": "ollama-key",  # Ollama's calls go as they are
        "AWS_ACCESS_KEY_ID": "AKIA0000000000000000",  # Bedrock's are signed again
    }
    assert upstream_keys(shell) == {
        "openai": "sk-openai",
        "google": "google-key",
        "azure": "azure-key",
    }
    assert upstream_keys({"GEMINI_API_KEY": "gemini-key"}) == {"google": "gemini-key"}
    assert upstream_keys({}) == {}
