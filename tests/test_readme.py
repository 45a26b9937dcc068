"""The README's tutorial is executed, so documentation cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mockserver.scenario.loader import load_file
from tests.conftest import start_server

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"<!-- (tutorial-[a-z]+)(?:: (\S+))? -->\n```[a-z]+\n(.*?)```", re.S)


def blocks() -> list[tuple[str, str | None, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in BLOCK.finditer(README.read_text())]


def test_readme_opens_with_the_two_commands() -> None:
    commands = re.findall(r"```bash\n(.*?)\n```", README.read_text(), re.S)[:2]
    assert commands[0].endswith("mockserver serve")
    assert commands[1].endswith("-m pytest -q")
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci


def test_tutorial_runs_against_a_real_server(tmp_path: Path) -> None:
    found = blocks()
    assert [kind for kind, _, _ in found] == ["tutorial-file", "tutorial-python"]
    for kind, name, text in found:
        if kind == "tutorial-file":
            assert name is not None
            (tmp_path / name).write_text(text)
    scenario = load_file(tmp_path / "weather.yaml")
    server = start_server(scenario=str(tmp_path / "weather.yaml"))
    try:
        code = found[1][2].replace("http://127.0.0.1:8000/v1", server.base_url)
        exec(compile(code, "README.md", "exec"), {})
    finally:
        server.stop()
    assert scenario.fallback == "strict"


def test_the_miss_shown_in_the_readme_is_the_real_text(tmp_path: Path) -> None:
    import openai

    (tmp_path / "weather.yaml").write_text(blocks()[0][2])
    server = start_server(scenario=str(tmp_path / "weather.yaml"))
    try:
        with (
            openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client,
            pytest.raises(openai.BadRequestError) as info,
        ):
            client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "Hi"}]
            )
    finally:
        server.stop()
    shown = re.search(r"```text\n(No rule.*?)```", README.read_text(), re.S)
    assert shown is not None
    assert info.value.body["message"] == shown.group(1).strip()
