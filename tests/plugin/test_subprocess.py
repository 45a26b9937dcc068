"""What needs a fresh interpreter: the plugin's import cost, and pytest-xdist workers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.fixture(autouse=True)
def _bytecode_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let fresh interpreters reuse compiled modules: an xdist run starts five of them."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


#: Modules a suite that never asks for the fixture must not pay for.
HEAVY = ("mockserver.http.app", "mockserver.engine", "starlette", "uvicorn", "openai", "pydantic")


def test_importing_the_plugin_module_imports_nothing_heavy() -> None:
    code = (
        "import json, sys; import pytest_mockserver.plugin; "
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []


def test_collection_does_not_import_the_server(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        f"""
        import json, sys

        def pytest_collection_finish(session):
            loaded = [m for m in {list(HEAVY)!r} if m in sys.modules]
            print("HEAVY=" + json.dumps(loaded))
        """
    )
    pytester.makepyfile(test_plain="def test_plain(): pass")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-s"
    )
    result.assert_outcomes(passed=1)
    # Only the server's own modules are pinned: other plugins may import what they like.
    (line,) = [line for line in result.outlines if "HEAVY=" in line]
    loaded = json.loads(line.partition("HEAVY=")[2])
    assert not {"mockserver.http.app", "mockserver.engine", "uvicorn", "openai"} & set(loaded)


PARALLEL = """
import pytest


@pytest.mark.parametrize("n", range(12))
def test_each_has_its_own_namespace(mockserver, n):
    mockserver.on(id="r", last_user="hi").reply(text=f"answer {n}")
    client = mockserver.client()
    for _ in range(3):
        reply = client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.choices[0].message.content == f"answer {n}"
    assert mockserver.hits == {"r": 3}
    assert [c.seq for c in mockserver.calls] == [1, 2, 3]


@pytest.mark.mockserver(strict=True, assert_all_used=True)
def test_strict_and_used(mockserver):
    mockserver.on(last_user="x").reply(text="y")
    assert mockserver.client().chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "x"}]
    ).choices[0].message.content == "y"
"""


def test_xdist_workers_each_run_a_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_parallel=PARALLEL)
    result = pytester.runpytest_subprocess(
        "-n",
        "4",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-W",
        "error",
        "--mockserver-seed",
        "random",
    )
    result.assert_outcomes(passed=13)
    assert any(line.startswith("mockserver: seed ") for line in result.outlines)
