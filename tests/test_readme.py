"""The README stays a short front door: its two commands first, and links that lead somewhere.
(Its examples are run with the docs', by tests/docs/test_examples.py.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_readme_opens_with_the_two_commands() -> None:
    commands = re.findall(r"```bash\n(.*?)\n```", README.read_text(), re.S)[:2]
    assert commands[0].endswith("mockserver serve")
    assert commands[1].endswith("-m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci


def test_the_docs_home_opens_with_the_same_two_commands() -> None:
    readme = re.findall(r"```bash\n(.*?)\n```", README.read_text(), re.S)[:2]
    home = re.findall(r"```bash\n(.*?)\n```", (ROOT / "docs" / "index.md").read_text(), re.S)
    assert home[:2] == readme


def test_readme_is_short() -> None:
    assert len(README.read_text().splitlines()) <= 150


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    links = re.findall(r"\]\(([^)#]+?)(?:#[^)]*)?\)", README.read_text())
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert relative
    assert [link for link in relative if not (ROOT / link).is_file()] == []


def test_under_the_test_command_it_says_which_tests_skip_and_how_to_run_them() -> None:
    """The browser tests want the openai npm package and instructor a side environment: the
    line under the command says so, with the commands ``.ci/run`` runs to make both."""
    ci = (ROOT / ".ci" / "run").read_text()
    for page in (README, ROOT / "docs" / "index.md"):
        text = page.read_text()
        command = "\n```\n\n"
        after = text.split(".venv/bin/python -m pytest -q" + command, 1)[1].split("\n\n")[0]
        assert "skip" in after, page
        assert "`(cd tests/browser && npm install)`" in after, page
        side = re.search(
            r"`python3 -m venv \.venv-openai2 && (\.venv-openai2/bin/pip [^`]+)`", after
        )
        assert side is not None, page
        wanted = side[1].replace("pip install ", "pip install -q ", 1)
        assert wanted in " ".join(ci.split()), "the README's side environment is .ci/run's"
        assert "(cd tests/browser && npm install" in ci
        assert ".ci/run" in after, page


def test_every_mkdocs_command_is_run_as_ci_runs_it_and_serves_beside_mockserver() -> None:
    """``mkdocs serve`` on its own port (mockserver serves on 8000), and every ``mkdocs``
    command with the variable .ci/run sets (it silences the theme's end-of-life notice)."""
    assert (
        "NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict"
        in (ROOT / ".ci" / "run").read_text()
    )
    pages = [README, ROOT / "docs" / "contributing.md"]
    commands = [
        line
        for page in pages
        for line in page.read_text().splitlines()
        if re.search(r"\bmkdocs (serve|build)", line)
    ]
    assert len(commands) >= 3
    for line in commands:
        assert "NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs" in line, line
        if "mkdocs serve" in line:
            assert "mkdocs serve -a 127.0.0.1:8001" in line, line
