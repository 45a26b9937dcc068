"""Agent frameworks against a real server on loopback, and nothing else.

Every test here runs with the frameworks' phoning home switched off (litellm's price map,
tracing, telemetry) and behind a guard that refuses, and records, any connection or name
look-up that is not loopback: a test that tried one fails, whatever the framework did with
the refusal.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer

#: Environment that keeps the frameworks on the machine.
OFFLINE = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "HF_HUB_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",
}
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", ""})


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return True  # a Unix socket path or the like: not the network
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    refused: list[str] = []
    connect = socket.socket.connect
    connect_ex = socket.socket.connect_ex
    getaddrinfo = socket.getaddrinfo

    def check(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback(host):
            refused.append(str(host))
            raise ConnectionRefusedError(f"tests/frameworks: no network beyond loopback ({host})")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        check(address)
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return connect_ex(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        check((host,))
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    yield refused
    assert not refused, f"a framework tried to reach beyond loopback: {refused}"


@pytest.fixture
def control(server: BackgroundServer, api_key: str) -> Iterator[httpx.Client]:
    """The control API for the test's namespace."""
    with httpx.Client(
        base_url=server.url + "/__mockserver", headers={"Authorization": f"Bearer {api_key}"}
    ) as http:
        yield http


@pytest.fixture
def calls(control: httpx.Client) -> Any:
    """The namespace's journal, read when called."""

    def read() -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = control.get("/calls").json()["data"]
        return data

    return read


@pytest.fixture
def litellm(server: BackgroundServer, api_key: str) -> Iterator[Any]:
    """litellm, imported after the offline environment is set; its event loop closed after."""
    module = pytest.importorskip("litellm")  # imported after the conftest set its offline env
    module.telemetry = False
    yield module
    # litellm's sync calls make the thread an event loop (asyncio.get_event_loop()) and never
    # close it: closed here, or its ResourceWarning surfaces (as an error) wherever it is
    # collected later — in the server thread, as a 500.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:  # none was made (or it was already cleared)
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)
