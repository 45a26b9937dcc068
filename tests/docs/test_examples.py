"""Every runnable example of the docs (and of the README) runs, so none can rot.

The markers are described in docs/contributing.md: an HTML comment ``<!-- run: KIND … -->``
on the line before a fenced block says what the block is and how it is run.
"""

from __future__ import annotations

import contextlib
import gc
import io
import re
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
import yaml

from mockserver.scenario.editor_schema import scenario_json_schema
from mockserver.scenario.loader import load_file, parse_scenario
from tests.conftest import BackgroundServer, start_server

ROOT = Path(__file__).resolve().parents[2]
#: The README and every page (not the helpers' drafts in docs/incoming/, the lead's to merge).
PAGES = [
    page
    for page in sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
    if "incoming" not in page.relative_to(ROOT).parts
]
FENCE = re.compile(r"^(?:<!-- run: (\w+)(?: ([^\n]*?))? -->\n)?```(\w*)\n(.*?)^```$", re.M | re.S)
NAMED = re.compile(r"\A# ([\w./-]+)\n")
KINDS = {"file", "scenario", "rules", "python", "pytest", "output", "no"}
#: Where the examples send their requests (the OpenAI base URL, or the server's root for
#: clients that add their own version, as google-genai and anthropic do); the runner points
#: them at a server of its own.
EXAMPLE_URL = "http://127.0.0.1:8000/v1"
EXAMPLE_ROOT = "http://127.0.0.1:8000"

Run = Callable[..., pytest.RunResult]


@dataclass(frozen=True)
class Block:
    kind: str | None  # None: not marked
    argument: str
    language: str
    text: str
    where: str

    @property
    def name(self) -> str:
        named = NAMED.match(self.text)
        name = self.argument or (named.group(1) if named else "")
        assert name, f"{self.where}: a {self.kind} block needs a file name"
        return name


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        where = f"{page.relative_to(ROOT)}:{line}"
        kind, argument, language, body = match.groups()
        found.append(Block(kind, argument or "", language, body, where))
    return found


def runnable(page: Path) -> bool:
    return any(b.kind not in (None, "no") for b in blocks(page))


def test_every_marker_is_known_and_every_python_block_is_marked() -> None:
    problems = []
    for page in PAGES:
        for block in blocks(page):
            if block.kind is not None and block.kind not in KINDS:
                problems.append(f"{block.where}: unknown marker 'run: {block.kind}'")
            if block.language == "python" and block.kind is None:
                problems.append(f"{block.where}: a python block with no run marker")
    assert problems == []


def test_the_docs_run_examples_of_every_kind() -> None:
    kinds = [b.kind for page in PAGES for b in blocks(page)]
    assert kinds.count("pytest") >= 15
    assert kinds.count("python") >= 5
    assert {"file", "scenario", "rules", "output"} <= set(kinds)


class Page:
    """One page's examples, run in order in one directory."""

    def __init__(self, path: Path, directory: Path, run: Run) -> None:
        self.path, self.directory, self.run = path, directory, run
        self.printed: list[str] = []
        self.expected: list[Block] = []
        self.tests: dict[str, str] = {}
        self.variables: dict[str, object] = {}
        self.servers: dict[str, BackgroundServer] = {}

    def write(self, block: Block) -> Path:
        path = self.directory / block.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        return path

    def server(self, argument: str) -> BackgroundServer:
        scenario = argument.removeprefix("scenario=") if argument else ""
        if scenario not in self.servers:
            settings = {"scenario": scenario} if scenario else {}
            self.servers[scenario] = start_server(**settings)
        return self.servers[scenario]

    def script(self, block: Block) -> None:
        server = self.server(block.argument)
        code = block.text.replace(EXAMPLE_URL, server.base_url).replace(EXAMPLE_ROOT, server.url)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, block.where, "exec"), self.variables)
        self.printed += out.getvalue().splitlines()

    def one(self, block: Block) -> None:
        if block.kind == "file":
            self.write(block)
        elif block.kind == "scenario":
            load_file(self.write(block))
            jsonschema.validate(yaml.safe_load(block.text), scenario_json_schema())
        elif block.kind == "rules":
            parse_scenario("rules:\n" + textwrap.indent(block.text, "  "), source=block.where)
        elif block.kind == "python":
            self.script(block)
        elif block.kind == "pytest":
            self.tests[self.write(block).name] = block.text
        elif block.kind == "output":
            self.expected.append(block)

    def pytest(self) -> None:
        count = {
            n: len(re.findall(r"^(?:async )?def test_", t, re.M)) for n, t in self.tests.items()
        }
        failing = sum(n for name, n in count.items() if "_fails" in name)
        result = self.run(*self.tests)
        self.printed += result.outlines
        result.assert_outcomes(passed=sum(count.values()) - failing, failed=failing)

    def check_output(self) -> None:
        for block in self.expected:
            lines = block.text.rstrip("\n").splitlines()
            starts = [i for i, line in enumerate(self.printed) if line == lines[0]]
            shown = any(self.printed[i : i + len(lines)] == lines for i in starts)
            assert shown, f"{block.where}: not printed by the page's examples:\n{block.text}"

    @contextlib.contextmanager
    def running(self) -> Iterator[Page]:
        try:
            yield self
        finally:
            # The clients a page's examples made (an example, like a script, leaves its
            # client open: openai's, anthropic's, google-genai's, boto3's, ollama's…): closed
            # here, and whatever else they left collected now, not whenever a later test
            # happens to (a ResourceWarning there fails that test, not this page's).
            for value in self.variables.values():
                close = getattr(value, "close", None)
                if callable(close) and not isinstance(value, type | types.ModuleType):
                    close()
            self.variables.clear()
            gc.collect()
            for server in self.servers.values():
                server.stop()


@pytest.mark.parametrize(
    "page", [p for p in PAGES if runnable(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_examples_of_the_page_run(page: Path, pytester: pytest.Pytester, run: Run) -> None:
    with Page(page, pytester.path, run).running() as examples:
        for block in blocks(page):
            examples.one(block)
        if examples.tests:
            examples.pytest()
        examples.check_output()
