"""What the inspector's browser tests share: a server with a scenario for some keys, a call
sent and read back from the journal, the inspector opened at a width and a call opened in it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from mockserver.http.server import BackgroundServer
from tests.conftest import start_server

__all__ = [
    "KEY",
    "LAYOUT_CHECK",
    "SHOTS",
    "entry",
    "open_call",
    "open_inspector",
    "post",
    "serve_scenario",
]

KEY = "sk-call-view-0001"
SHOTS = Path(os.environ.get("MOCKSERVER_SCREENSHOTS", "/tmp"))
LAYOUT_CHECK = (Path(__file__).parent.parent / "browser" / "layout_check.js").read_text(
    encoding="utf-8"
)


def serve_scenario(scenario: str, *keys: str) -> Iterator[BackgroundServer]:
    """A server (seed 5) whose namespaces of ``keys`` use ``scenario`` (YAML), for a fixture."""
    server = start_server(seed=5)
    for key in keys:
        httpx.put(
            server.url + "/__mockserver/scenario",
            content=scenario,
            headers={"content-type": "application/yaml", "authorization": f"Bearer {key}"},
        ).raise_for_status()
    yield server
    server.stop()


def post(mock: BackgroundServer, path: str, body: dict[str, Any], key: str = KEY) -> httpx.Response:
    with httpx.Client(headers={"authorization": f"Bearer {key}"}, timeout=10) as client:
        return client.post(mock.url + path, json=body)


def entry(mock: BackgroundServer, seq: int, key: str = KEY) -> dict[str, Any]:
    found = httpx.get(
        f"{mock.url}/__mockserver/calls/{seq}", headers={"authorization": f"Bearer {key}"}
    )
    found.raise_for_status()
    result: dict[str, Any] = found.json()
    return result


def open_inspector(new_page: Any, mock: BackgroundServer, width: int = 1366) -> Any:
    page, errors = new_page()
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(mock.url + "/__mockserver/")
    page.wait_for_selector("#live.on")
    return page, errors


def open_call(page: Any, number: int) -> None:
    """Open the journal row of the server-wide call ``number`` and wait for its view."""
    page.locator("#calls tr", has=page.locator(f"td.c-seq b:text-is('{number}')")).click()
    page.wait_for_function("() => !!document.querySelector('#answer').childElementCount")
