"""Where a recorded call goes upstream, and how a recording's own key goes with it."""

from __future__ import annotations

import pytest

from mockserver.record.upstream import upstream_headers, upstream_query, upstream_url

GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def test_openai_paths_go_under_the_base_url_after_its_v1() -> None:
    url = upstream_url("https://api.example.com/v1/", "/v1/chat/completions", "a=1")
    assert url == "https://api.example.com/v1/chat/completions?a=1"


@pytest.mark.parametrize(
    "base",
    ["https://gemini.example", "https://gemini.example/", "https://gemini.example/v1beta"],
)
def test_google_paths_go_from_the_hosts_root_whatever_version_the_base_names(base: str) -> None:
    url = upstream_url(base, GEMINI, "alt=sse", provider="google")
    assert url == f"https://gemini.example{GEMINI}?alt=sse"


def test_a_recordings_own_key_replaces_the_clients_in_googles_header_and_query() -> None:
    sent = [("x-goog-api-key", "client"), ("content-type", "application/json")]
    assert upstream_headers(sent, key="own", provider="google") == [
        ("content-type", "application/json"),
        ("x-goog-api-key", "own"),
    ]
    assert upstream_query("alt=sse&key=client", key="own") == "alt=sse"
    assert upstream_query("alt=sse&key=client", key=None) == "alt=sse&key=client"


def test_azure_paths_go_from_the_resources_root_with_its_key_as_api_key() -> None:
    path = "/openai/deployments/story/chat/completions"
    url = upstream_url("https://x.openai.example", path, "api-version=1", provider="azure")
    assert url == f"https://x.openai.example{path}?api-version=1"
    sent = upstream_headers([("api-key", "client")], key="own", provider="azure")
    assert sent == [("api-key", "own")]


def test_without_a_key_of_its_own_the_clients_headers_go_as_they_are() -> None:
    sent = [("authorization", "Bearer client")]
    assert upstream_headers(sent, key=None) == sent
    assert upstream_headers(sent, key="own") == [("authorization", "Bearer own")]
