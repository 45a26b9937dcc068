"""DNS rebinding: the control plane answers only allowed Host names; /v1 answers any."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

REBOUND = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}


def test_a_rebinding_page_cannot_rewrite_the_scenario(server: BackgroundServer) -> None:
    # The reproduction: a page on evil.example, whose name resolves to 127.0.0.1.
    answer = httpx.put(
        server.url + "/__mockserver/scenario?namespace=sk-rebound",
        headers={**REBOUND, "content-type": "application/json"},
        json={"name": "overloaded"},
    )
    assert answer.status_code == 403
    error = answer.json()["error"]
    assert error["code"] == "mockserver_host_not_allowed"
    assert error["type"] == "invalid_request_error"
    assert "'evil.example:8000'" in error["message"]
    assert "--allowed-host evil.example" in error["message"]
    assert "access-control-allow-origin" not in answer.headers
    state = httpx.get(server.url + "/__mockserver/scenario?namespace=sk-rebound").json()
    assert state["is_default"] is True


@pytest.mark.parametrize("path", ["/", "/events", "/calls", "/namespaces", "/health"])
def test_the_inspector_and_its_feed_refuse_a_foreign_host(
    server: BackgroundServer, path: str
) -> None:
    answer = httpx.get(server.url + "/__mockserver" + path, headers={"host": "evil.example"})
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "mockserver_host_not_allowed"


def test_a_rebinding_preflight_is_refused(server: BackgroundServer) -> None:
    answer = httpx.options(
        server.url + "/__mockserver/scenario",
        headers={**REBOUND, "access-control-request-method": "PUT"},
    )
    assert answer.status_code == 403
    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "LOCALHOST:1234",
        "localhost.",
        "app.localhost:5173",
        "127.0.0.1",
        "127.8.9.10:80",
        "[::1]:8000",
        "192.168.1.20:8000",
    ],
)
def test_loopback_names_and_ip_addresses_reach_the_control_plane(
    server: BackgroundServer, host: str
) -> None:
    answer = httpx.get(server.url + "/__mockserver/health", headers={"host": host})
    assert answer.status_code == 200, answer.text


def test_the_api_answers_any_host(server: BackgroundServer) -> None:
    answer = httpx.post(
        server.url + "/v1/chat/completions",
        headers={"host": "api.behind-a-proxy.example", "authorization": "Bearer sk-any-host"},
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]},
    )
    assert answer.status_code == 200


@pytest.fixture(scope="module")
def listed() -> Iterator[BackgroundServer]:
    server = start_server(allowed_hosts=("mock.test", ".dev.example"))
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("mock.test:8000", 200),
        ("MOCK.TEST", 200),
        ("dev.example", 200),
        ("a.b.dev.example:1", 200),
        ("other.test", 403),
        ("notdev.example", 403),
        ("mock.test.evil.example", 403),
    ],
)
def test_listed_host_names_reach_the_control_plane(
    listed: BackgroundServer, host: str, status: int
) -> None:
    answer = httpx.get(listed.url + "/__mockserver/health", headers={"host": host})
    assert answer.status_code == status


def test_a_listed_host_page_is_the_servers_own(listed: BackgroundServer) -> None:
    answer = httpx.get(
        listed.url + "/__mockserver/health",
        headers={"host": "mock.test:8000", "origin": "http://mock.test:8000"},
    )
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "http://mock.test:8000"


def test_a_star_allows_any_host() -> None:
    server = start_server(allowed_hosts=("*",))
    try:
        answer = httpx.get(server.url + "/__mockserver/health", headers={"host": "evil.example"})
        assert answer.status_code == 200
    finally:
        server.stop()
