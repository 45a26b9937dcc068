"""The inspector page, in headless Chromium, beside a page that uses the official SDK: the journal
shows the SDK's request live, and the page's controls change what the next request gets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.http.routes.labels import label
from mockserver.http.server import BackgroundServer
from tests.browser.conftest import sdk_page
from tests.conftest import start_server

KEY = "sk-inspected"
#: Where the screenshots go (look at them: they are how the page reads to a person).
SHOTS = Path(os.environ.get("MOCKSERVER_SCREENSHOTS", "/tmp"))


@pytest.fixture
def mock() -> Iterator[BackgroundServer]:
    server = start_server(seed=3)  # its own server: the journal starts empty
    yield server
    server.stop()


def text(page: Any, selector: str) -> str:
    return str(page.text_content(selector) or "")


def wait_text(page: Any, selector: str, expected: str) -> None:
    page.wait_for_function(
        "([s, t]) => (document.querySelector(s)?.textContent || '').includes(t)",
        arg=[selector, expected],
    )


def chat(sdk: Any, prompt: str) -> str:
    sdk.fill("#prompt", prompt)
    sdk.click("#chat")
    sdk.wait_for_function(
        "document.getElementById('chat-meta').textContent"
        " || document.getElementById('error').textContent"
    )
    return text(sdk, "#error") or text(sdk, "#chat-output")


#: The page-side layout check (see test_inspector_call.py): what overflows, is cut or wraps.
LAYOUT_CHECK = (Path(__file__).parent / "layout_check.js").read_text(encoding="utf-8")


def open_inspector(new_page: Any, mock: BackgroundServer, width: int | None = None) -> Any:
    page, errors = new_page()
    if width is not None:
        page.set_viewport_size({"width": width, "height": 800})
    page.goto(mock.url + "/__mockserver/")
    page.wait_for_selector("#live.on")
    return page, errors


@pytest.mark.parametrize("width", [1024, 1440])
def test_the_journal_shows_an_sdk_request_live_and_opens_it_by_keyboard(
    mock: BackgroundServer, site: BackgroundServer, new_page: Any, width: int
) -> None:
    inspector, errors = open_inspector(new_page, mock, width)
    sdk, _ = sdk_page(new_page, site, mock, KEY)
    chat(sdk, "hello there")

    row = inspector.locator("#calls tr").first
    wait_text(inspector, "#calls tr", "/v1/chat/completions")
    assert label(KEY) in row.inner_text()  # the key's label: the page never shows a key
    assert KEY not in inspector.content()
    assert "200" in row.inner_text()
    assert "generated" in row.inner_text()  # a turn the default scenario generated
    wait_text(inspector, "#ns-name", label(KEY))  # the side panel follows the newest call
    wait_text(inspector, "#namespaces", label(KEY))
    wait_text(inspector, "#rules", "no rules")
    inspector.screenshot(path=str(SHOTS / f"inspector-journal-{width}.png"))
    assert inspector.evaluate(LAYOUT_CHECK) == []

    row.focus()
    inspector.keyboard.press("Enter")
    wait_text(inspector, "#detail-request", "hello there")
    assert "events" in text(inspector, "#detail-response-title")
    assert "chat.completion.chunk" in text(inspector, "#detail-response")
    inspector.screenshot(path=str(SHOTS / f"inspector-detail-{width}.png"))
    assert inspector.evaluate(LAYOUT_CHECK) == []
    inspector.keyboard.press("Escape")
    assert inspector.locator("#detail").is_hidden()
    httpx.get(mock.base_url + "/models", headers={"authorization": f"Bearer {KEY}"})
    wait_text(inspector, "#calls tr:first-child", "/v1/models")
    assert "generated" not in inspector.locator("#calls tr").first.inner_text()  # not a turn
    assert errors == []


def test_switching_the_scenario_changes_the_next_reply(
    mock: BackgroundServer, site: BackgroundServer, new_page: Any
) -> None:
    inspector, errors = open_inspector(new_page, mock)
    sdk, _ = sdk_page(new_page, site, mock, KEY)
    generated = chat(sdk, "hello")
    wait_text(inspector, "#ns-name", label(KEY))

    inspector.select_option("#switch", "plain-chat")
    inspector.click("#switch-form button")
    wait_text(inspector, "#notice", f"Scenario plain-chat is active in {label(KEY)}.")
    wait_text(inspector, "#rules", "greeting")

    scripted = chat(sdk, "hello")
    assert scripted == "Hello! How can I help you today?" != generated
    wait_text(inspector, "#calls tr:first-child", "greeting")
    inspector.wait_for_function(
        "() => document.querySelector('#rules tr.hit td')?.textContent === 'greeting'"
    )
    inspector.screenshot(path=str(SHOTS / "inspector-scenario.png"))
    assert errors == []


def test_a_fault_queued_from_the_page_fails_the_next_request_and_reset_clears(
    mock: BackgroundServer, site: BackgroundServer, new_page: Any
) -> None:
    inspector, errors = open_inspector(new_page, mock)
    sdk, _ = sdk_page(new_page, site, mock, KEY)
    chat(sdk, "first")
    wait_text(inspector, "#ns-name", label(KEY))

    inspector.select_option("#fault", "overloaded")
    inspector.focus("#fault-form button")
    inspector.keyboard.press("Enter")
    wait_text(inspector, "#sc-pending", "1 one-off queued")
    assert chat(sdk, "second") == "503 server_is_overloaded retry-after=1"
    wait_text(inspector, "#calls tr:first-child", "503")
    assert "(one-off)" in inspector.locator("#calls tr").first.inner_text()
    inspector.screenshot(path=str(SHOTS / "inspector-fault.png"))

    inspector.click("#reset")
    wait_text(inspector, "#notice", f"Namespace {label(KEY)} was reset.")
    inspector.wait_for_function("() => document.querySelectorAll('#calls tr').length === 0")
    assert errors == []
