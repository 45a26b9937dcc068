"""The docs site in headless Chromium at 1280 px: the home page's set-up commands wrap beside
their copy button instead of running under it, and a page's side navigation still starts at
Home (the theme's sticky title hid it on pages in the second half of the list)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.staticfiles import StaticFiles

from mockserver.http.server import BackgroundServer
from mockserver.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("MOCKSERVER_SCREENSHOTS", "/tmp"))


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """The site, built as CI builds it, served from a loopback port."""
    pytest.importorskip("material", reason="mkdocs-material is not installed (the test extra)")
    site = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    app = Starlette()
    app.mount("/", StaticFiles(directory=site, html=True))
    app.state.settings = Settings()  # the runner reads its socket timeouts from the app's settings
    server = BackgroundServer(app).start()
    yield server
    server.stop()


def open_page(browser: Any, docs: BackgroundServer, path: str) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(docs.url + path)
    # The theme lays the navigation out (and scrolls it) in one step, then its scroll event
    # is answered a frame later: wait for both.
    page.wait_for_function(
        "() => !!document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap')"
        ".style.height"
    )
    page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))"
    )
    return page


def test_the_set_up_commands_wrap_beside_their_copy_button(
    browser: Any, docs: BackgroundServer
) -> None:
    page = open_page(browser, docs, "/")
    overlaps = page.evaluate(
        """() => [...document.querySelectorAll('.md-content div.highlight')].slice(0, 2)
          .map(block => {
            // the copy button (its box, as this release of the theme draws it, or an older)
            const button = block.querySelector('.md-code__nav, .md-clipboard')
              .getBoundingClientRect();
            const range = document.createRange();
            range.selectNodeContents(block.querySelector('pre > code'));
            return [...range.getClientRects()].filter(r => r.width > 0 &&
              r.right > button.left && r.left < button.right &&
              r.bottom > button.top && r.top < button.bottom).length;
          })"""
    )
    page.screenshot(path=str(SHOTS / "docs-home-1280.png"))
    assert overlaps == [0, 0]  # two blocks, and no text under either button
    page.close()


@pytest.mark.parametrize("path", ["/cli/", "/pytest/"])
def test_the_side_navigation_starts_at_home_when_the_page_s_link_fits(
    browser: Any, docs: BackgroundServer, path: str
) -> None:
    page = open_page(browser, docs, path)
    found = page.evaluate(
        """() => {
          const home = [...document.querySelectorAll('.md-sidebar--primary .md-nav__link')]
            .find(a => a.textContent.trim() === 'Home');
          const box = home.getBoundingClientRect();
          const seen = document.elementFromPoint(box.left + 4, box.top + box.height / 2);
          const wrap = document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap');
          return {uncovered: home.contains(seen), scrolled: wrap.scrollTop,
                  active: !!document.querySelector('.md-sidebar--primary .md-nav__link--active')};
        }"""
    )
    page.screenshot(path=str(SHOTS / f"docs-{path.strip('/')}-1280.png"))
    assert found == {"uncovered": True, "scrolled": 0, "active": True}
    page.close()
