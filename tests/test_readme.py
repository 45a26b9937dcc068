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
