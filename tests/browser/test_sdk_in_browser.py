"""The official ``openai`` npm SDK, in headless Chromium on another origin, streams from the mock
(CORS preflights, exposed headers and SSE all go through a real browser)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mockserver.http.server import BackgroundServer
from tests.browser.conftest import control, sdk_page
from tests.conftest import start_server

SCENARIO = """
name: browser
rules:
  - id: hello-browser
    when: {last_user: {contains: browser}}
    reply: {text: "Hello, browser! Streaming works."}
"""
REPLY = "Hello, browser! Streaming works."


@pytest.fixture(scope="module")
def mock() -> Iterator[BackgroundServer]:
    server = start_server(seed=7, api_keys=("sk-browser-1", "sk-browser-2", "sk-browser-3"))
    yield server
    server.stop()


def use_scenario(mock: BackgroundServer, key: str) -> None:
    with control(mock, key) as client:
        response = client.put(
            "/scenario", content=SCENARIO, headers={"content-type": "application/yaml"}
        )
        assert response.status_code == 200, response.text


def rendered(page: Any, kind: str) -> tuple[str, str]:
    page.wait_for_function(
        f"document.getElementById('{kind}-meta').textContent"
        " || document.getElementById('error').textContent"
    )
    assert page.text_content("#error") == ""
    return page.text_content(f"#{kind}-output"), page.text_content(f"#{kind}-meta")


def test_chat_completion_streams_into_a_browser_page(
    new_page: Any, site: BackgroundServer, mock: BackgroundServer
) -> None:
    use_scenario(mock, "sk-browser-1")
    page, errors = sdk_page(new_page, site, mock, "sk-browser-1")
    page.click("#chat")
    text, meta = rendered(page, "chat")
    assert text == REPLY
    chunks, _, request_id = meta.partition(" chunks; request ")
    # x-request-id is readable only because it is exposed to the page.
    assert int(chunks) > 3
    assert request_id.startswith("req_")
    assert errors == []


def test_responses_stream_into_a_browser_page(
    new_page: Any, site: BackgroundServer, mock: BackgroundServer
) -> None:
    probe = httpx.post(
        mock.base_url + "/responses", json={}, headers={"authorization": "Bearer sk-browser-2"}
    )
    if probe.status_code == 404 and "Invalid URL" in probe.text:
        pytest.skip("/v1/responses is not served yet (the Responses API is being built)")
    use_scenario(mock, "sk-browser-2")
    page, errors = sdk_page(new_page, site, mock, "sk-browser-2")
    page.click("#responses")
    text, meta = rendered(page, "responses")
    assert text == REPLY
    assert meta.endswith(f"; completed; {len(REPLY)} characters")
    assert errors == []


def test_a_queued_fault_reaches_the_page_with_its_retry_after(
    new_page: Any, site: BackgroundServer, mock: BackgroundServer
) -> None:
    page, _ = sdk_page(new_page, site, mock, "sk-browser-3")
    with control(mock, "sk-browser-3") as client:
        client.post("/next", json={"error": {"preset": "rate_limited"}}).raise_for_status()
    page.click("#chat")
    page.wait_for_function("document.getElementById('error').textContent")
    assert page.text_content("#error") == "429 slow_down retry-after=1"


def test_a_wrong_api_key_gets_the_real_401_in_the_browser(
    new_page: Any, site: BackgroundServer, mock: BackgroundServer
) -> None:
    page, _ = sdk_page(new_page, site, mock, "sk-not-configured")
    page.click("#chat")
    page.wait_for_function("document.getElementById('error').textContent")
    assert page.text_content("#error") == "401 invalid_api_key retry-after=null"
