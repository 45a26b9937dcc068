"""CORS against a real server: a web page on another origin can call every route, and read the
headers the OpenAI SDKs read; the control plane answers only pages it trusts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import httpx
import pytest
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from mockserver.http.app import create_app
from mockserver.http.cors import EXPOSED_HEADERS
from mockserver.http.routes.lazy import LazyRoutes
from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings
from tests.conftest import start_server

PAGE = "http://localhost:5173"
SDK_HEADERS = (
    "authorization, content-type, openai-organization, openai-project, openai-beta, "
    "x-stainless-os, x-stainless-lang, x-stainless-retry-count, x-stainless-timeout, "
    "x-mockserver-session"
)
CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}


def _routes(routes: Sequence[BaseRoute], prefix: str = "") -> Iterator[tuple[str, Route]]:
    """(full path, route) of every route under ``routes``, through mounts and lazy groups."""
    for route in routes:
        if isinstance(route, LazyRoutes):
            yield from _routes(route.routes, prefix)
        elif isinstance(route, Mount):
            yield from _routes(route.routes, prefix + route.path)
        elif not isinstance(route, WebSocketRoute):  # a socket's handshake has no preflight
            assert isinstance(route, Route)
            yield prefix + route.path, route


def every_route() -> list[tuple[str, str]]:
    """(method, path) of every route the app serves, path parameters filled in."""
    found = []
    for path, route in _routes(create_app().routes):
        path = path.replace("{", "").replace("}", "").replace(":int", "").replace(":path", "")
        methods = sorted(route.methods or ())
        found += [(method, path) for method in methods if method != "HEAD"]
    return sorted(set(found))


def preflight(url: str, method: str, *, origin: str = PAGE, **headers: str) -> httpx.Response:
    return httpx.options(
        url,
        headers={
            "origin": origin,
            "access-control-request-method": method,
            "access-control-request-headers": SDK_HEADERS,
            **headers,
        },
    )


@pytest.mark.parametrize(("method", "path"), every_route())
def test_every_route_answers_a_preflight(server: BackgroundServer, method: str, path: str) -> None:
    response = preflight(server.url + path, method)
    assert response.status_code == 204
    control = path.startswith("/__mockserver")
    # The control plane never says `*`: it names the (loopback) page it trusts.
    assert response.headers["access-control-allow-origin"] == (PAGE if control else "*")
    assert method in response.headers["access-control-allow-methods"]
    assert response.headers["access-control-allow-headers"] == SDK_HEADERS
    assert int(response.headers["access-control-max-age"]) > 0


def test_an_answer_exposes_every_header_the_sdk_reads(
    server: BackgroundServer, api_key: str
) -> None:
    response = httpx.post(
        server.base_url + "/chat/completions",
        json=CHAT,
        headers={"origin": PAGE, "authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    exposed = {h.strip() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"x-request-id", "openai-processing-ms", "openai-version"} <= exposed
    sent = {h for h in response.headers if h.startswith(("x-", "openai-", "retry-after"))}
    assert sent <= exposed


def test_a_rate_limited_answer_exposes_retry_after(server: BackgroundServer, api_key: str) -> None:
    httpx.post(
        server.url + "/__mockserver/next",
        params={"namespace": api_key},
        json={"error": {"preset": "rate_limited"}},
    ).raise_for_status()
    response = httpx.post(
        server.base_url + "/chat/completions",
        json=CHAT,
        headers={"origin": PAGE, "authorization": f"Bearer {api_key}"},
    )
    assert response.status_code == 429
    assert response.headers["access-control-allow-origin"] == "*"
    exposed = response.headers["access-control-expose-headers"]
    assert "retry-after" in exposed
    assert "retry-after-ms" in exposed
    assert response.headers["retry-after"] == "1"


def test_an_unknown_route_still_carries_cors_headers(server: BackgroundServer) -> None:
    response = httpx.get(server.base_url + "/nope", headers={"origin": PAGE})
    assert response.status_code == 404
    assert response.headers["access-control-allow-origin"] == "*"


def test_no_origin_no_cors_headers(server: BackgroundServer) -> None:
    response = httpx.get(server.base_url + "/models")
    assert "access-control-allow-origin" not in response.headers


def test_a_preflight_reflects_only_header_names(server: BackgroundServer) -> None:
    response = preflight(
        server.base_url + "/models", "GET", **{"access-control-request-headers": "a b;c"}
    )
    assert response.status_code == 204
    assert "authorization" in response.headers["access-control-allow-headers"]
    assert "a b;c" not in response.headers["access-control-allow-headers"]


def test_a_public_page_may_reach_the_loopback_server(server: BackgroundServer) -> None:
    """Chrome's private network access: a public page asks before calling localhost."""
    response = preflight(
        server.base_url + "/chat/completions",
        "POST",
        origin="https://app.example.com",
        **{"access-control-request-private-network": "true"},
    )
    assert response.headers["access-control-allow-private-network"] == "true"


def test_the_control_plane_refuses_a_foreign_page(server: BackgroundServer, api_key: str) -> None:
    url = server.url + f"/__mockserver/scenario?namespace={api_key}"
    refused = httpx.put(url, json={"name": "plain-chat"}, headers={"origin": "https://evil.test"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "mockserver_origin_not_allowed"
    assert "--cors-origin https://evil.test" in refused.json()["error"]["message"]
    assert "access-control-allow-origin" not in refused.headers
    assert httpx.get(url).json()["name"] == "default"  # nothing changed
    assert preflight(url, "PUT", origin="https://evil.test").status_code == 403


def test_the_control_plane_serves_its_own_and_loopback_pages(
    server: BackgroundServer, api_key: str
) -> None:
    url = server.url + f"/__mockserver/scenario?namespace={api_key}"
    for origin in (server.url, "http://127.0.0.1:3000", "http://localhost:8080"):
        response = httpx.get(url, headers={"origin": origin})
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == origin
        assert "origin" in response.headers["vary"].lower()


@pytest.fixture(scope="module")
def listed() -> Iterator[BackgroundServer]:
    server = start_server(cors_origins=("https://app.test", "http://localhost:3000/"))
    yield server
    server.stop()


def test_a_configured_list_allows_only_its_origins(listed: BackgroundServer) -> None:
    url = listed.base_url + "/chat/completions"
    allowed = preflight(url, "POST", origin="https://app.test")
    assert allowed.headers["access-control-allow-origin"] == "https://app.test"
    assert "Origin" in allowed.headers["vary"]
    assert preflight(url, "POST", origin="http://localhost:3000").status_code == 204
    refused = preflight(url, "POST", origin="https://other.test")
    assert refused.status_code == 403
    answer = httpx.post(url, json=CHAT, headers={"origin": "https://other.test"})
    assert "access-control-allow-origin" not in answer.headers


def test_the_list_comes_from_the_environment() -> None:
    settings = Settings.from_env({"MOCKSERVER_CORS_ORIGINS": "https://a.test, https://b.test"})
    assert settings.cors_origins == ("https://a.test", "https://b.test")


def test_off_loopback_only_same_origin_pages_by_default() -> None:
    app = create_app(Settings(host="0.0.0.0", admin_token="t", port=0, clock="frozen"))
    with BackgroundServer(app) as server:
        url = server.base_url + "/models"
        assert preflight(url, "GET").status_code == 403
        same = httpx.get(url, headers={"origin": server.url})
        assert same.headers["access-control-allow-origin"] == server.url


def test_exposed_headers_name_what_the_sdks_read() -> None:
    assert {"x-request-id", "retry-after", "retry-after-ms", "openai-processing-ms"} <= set(
        EXPOSED_HEADERS
    )
    assert any(h.startswith("x-ratelimit-remaining") for h in EXPOSED_HEADERS)
