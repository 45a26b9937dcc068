"""Headless Chromium (Debian's, driven by Playwright) and a static site serving a test page that
loads the official ``openai`` npm SDK; each skips with the reason when its part is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HERE = Path(__file__).parent
SDK_DIR = HERE / "node_modules" / "openai"
CHROMIUM = Path(os.environ.get("MOCKSERVER_CHROMIUM", "/usr/bin/chromium"))
#: What this machine's closed network and a root user need (see docs/browser.md).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MEDIA_TYPES = {".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript"}
#: Every wait in a browser test is bounded by this (ms): a test stays well under 30 s.
WAIT_MS = 10_000


def _static(request: Request) -> Response:
    """The test page (``/``, ``/sdk.mjs``) and the SDK's own files under ``/openai/``."""
    path = request.path_params["path"] or "sdk.html"
    root, name = (
        (SDK_DIR, path.removeprefix("openai/")) if path.startswith("openai/") else (HERE, path)
    )
    file = (root / name).resolve()
    if (
        not file.is_relative_to(root.resolve())
        or not file.is_file()
        or file.suffix not in MEDIA_TYPES
    ):
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(file, media_type=MEDIA_TYPES[file.suffix])


@pytest.fixture(scope="session")
def site() -> Iterator[BackgroundServer]:
    """The page's own origin: a different port from the mock, so every call is cross-origin."""
    if not (SDK_DIR / "index.mjs").is_file():
        pytest.skip("the openai npm package is not installed: run `npm install` in tests/browser")
    app = Starlette(routes=[Route("/{path:path}", _static)])
    app.state.settings = Settings()  # the runner reads its socket timeouts from the app's settings
    server = BackgroundServer(app).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: Playwright's sync API keeps an event loop running in this thread while it
    is open, which would break the asyncio tests that run after the browser tests."""
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        # Playwright starts Chromium headless with a fresh, temporary --user-data-dir.
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


class PageErrors(list[str]):
    """Console errors and uncaught exceptions of a page, for failure messages."""

    def watch(self, page: Page) -> Page:
        page.on("pageerror", lambda exc: self.append(f"uncaught: {exc}"))
        page.on(
            "console",
            lambda msg: self.append(f"console: {msg.text}") if msg.type == "error" else None,
        )
        page.set_default_timeout(WAIT_MS)
        return page


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Any]:
    """``new_page()`` → a page in this test's own browser context, and that page's error log."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})

    def make() -> tuple[Page, PageErrors]:
        errors = PageErrors()
        return errors.watch(context.new_page()), errors

    yield make
    context.close()


def control(server: BackgroundServer, namespace: str) -> httpx.Client:
    return httpx.Client(
        base_url=server.url + "/__mockserver", params={"namespace": namespace}, timeout=5
    )


def sdk_page(new_page: Any, site: BackgroundServer, mock: BackgroundServer, key: str) -> Any:
    """The SDK test page, loaded and ready, calling ``mock`` with API key ``key``."""
    page, errors = new_page()
    page.goto(f"{site.url}/?" + urlencode({"base": mock.base_url, "key": key}))
    page.wait_for_function("document.title === 'ready'")
    return page, errors
