"""The README's pytest section runs: every named code block is written to its file, its tests
are run, and every ``text`` block (a failure report, the run header) must appear in pytest's
output."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    """From ``## The pytest fixture`` to the next ``## `` heading."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## The pytest fixture")
    end = text.index("\n## ", start + 1)
    return text[start:end]


FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
NAMED = re.compile(r"\A# ([\w./-]+)\n")

Run = Callable[..., pytest.RunResult]


def blocks(kind: str | None = None) -> list[tuple[str, str]]:
    found = [(m.group(1), m.group(2)) for m in FENCE.finditer(section())]
    return [(lang, body) for lang, body in found if kind is None or lang == kind]


def named_files() -> dict[str, str]:
    files = {}
    for _, body in blocks():
        name = NAMED.match(body)
        if name is not None:
            files[name.group(1)] = body
    return files


def test_every_python_example_names_its_file() -> None:
    unnamed = [body.splitlines()[0] for _, body in blocks("python") if not NAMED.match(body)]
    assert unnamed == []


@pytest.fixture
def examples(pytester: pytest.Pytester) -> dict[str, str]:
    files = named_files()
    for name, body in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    return files


def test_the_examples_pass(examples: dict[str, str], run: Run) -> None:
    passing = [n for n in examples if n.startswith("test_") and "_fails" not in n]
    expected = sum(
        examples[n].count("\ndef test_") + examples[n].count("\nasync def test_") for n in passing
    )
    result = run(*passing)
    result.assert_outcomes(passed=expected)
    assert expected >= 12


def test_the_failure_examples_fail_as_documented(examples: dict[str, str], run: Run) -> None:
    failing = [n for n in examples if n.startswith("test_") and "_fails" in n]
    result = run(*failing)
    result.assert_outcomes(failed=len(failing))
    output = result.outlines
    for _, text in blocks("text"):
        lines = text.rstrip("\n").splitlines()
        starts = [i for i, line in enumerate(output) if line == lines[0]]
        assert any(output[i : i + len(lines)] == lines for i in starts), lines
