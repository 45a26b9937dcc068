"""W7: what the ``mockserver`` pytest fixture costs a suite.

Two generated test files run under ``pytest -p pytest_mockserver.plugin`` in subprocesses (no
other plugin autoloaded): ``N`` tests that each take the fixture and load a one-rule scenario
(namespace creation, scenario load, teardown verdict), and ``N`` empty tests. The first
fixture test also times the session fixture itself (engine, app and the socket server).

* session start = that first-use time, measured inside the run;
* per-test overhead = (fixture run − empty run − session start) / N.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.servers import ROOT

__all__ = ["FixtureCost", "measure"]

TIMEOUT = 600.0

_FIXTURE_HEAD = """\
import json
import os
import time

import pytest


@pytest.fixture
def timed_session(request):
    started = time.perf_counter()
    session = request.getfixturevalue("mockserver_session")
    session.base_url  # the socket server, started on first use
    elapsed = time.perf_counter() - started
    with open(os.environ["BENCH_SESSION_FILE"], "w") as out:
        json.dump({"session_start": elapsed}, out)


def test_0000(timed_session, mockserver):
    mockserver.on(last_user_contains="hello").reply(text="Hi there!")
"""

_FIXTURE_TEST = """

def test_{n:04d}(mockserver):
    mockserver.on(last_user_contains="hello").reply(text="Hi there!")
"""

_EMPTY_HEAD = """\
def test_0000():
    pass
"""

_EMPTY_TEST = """

def test_{n:04d}():
    pass
"""

_RUNNER = """\
import sys, time
import pytest
started = time.perf_counter()
code = pytest.main(sys.argv[1:])
print("BENCH_ELAPSED", time.perf_counter() - started)
sys.exit(code)
"""


@dataclass(frozen=True, slots=True)
class FixtureCost:
    session_start_ms: float
    per_test_ms: float


def _write(folder: Path, name: str, head: str, test: str, count: int) -> Path:
    path = folder / name
    path.write_text(head + "".join(test.format(n=n) for n in range(1, count)))
    return path


def _run(folder: Path, test_file: Path, env: dict[str, str]) -> float | str:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _RUNNER,
            "-q",
            "-p",
            "pytest_mockserver.plugin",
            "-p",
            "no:cacheprovider",
            "-c",
            str(folder / "pytest.ini"),
            "--rootdir",
            str(folder),
            str(test_file),
        ],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )
    if out.returncode != 0:
        tail = (out.stdout + out.stderr).strip().splitlines()[-3:]
        return f"pytest exited {out.returncode}: " + " | ".join(tail)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH_ELAPSED"):
            return float(line.split()[1])
    return "no timing printed"


def measure(*, tests: int = 1000) -> FixtureCost | str:
    """The fixture's cost, or why it cannot be measured (the plugin is not usable)."""
    with tempfile.TemporaryDirectory(prefix="bench-w7-") as name:
        folder = Path(name)
        (folder / "pytest.ini").write_text("[pytest]\n")
        fixture_file = _write(folder, "test_fixture.py", _FIXTURE_HEAD, _FIXTURE_TEST, tests)
        empty_file = _write(folder, "test_empty.py", _EMPTY_HEAD, _EMPTY_TEST, tests)
        session_file = folder / "session.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MOCKSERVER_", "OPENAI_"))}
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        env["BENCH_SESSION_FILE"] = str(session_file)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        empty = _run(folder, empty_file, env)
        if isinstance(empty, str):
            return f"W7 empty run failed: {empty}"
        with_fixture = _run(folder, fixture_file, env)
        if isinstance(with_fixture, str):
            return f"the plugin is not usable yet ({with_fixture})"
        session_start = json.loads(session_file.read_text())["session_start"]
    per_test = (with_fixture - empty - session_start) / tests
    return FixtureCost(session_start * 1000, per_test * 1000)


if __name__ == "__main__":
    started = time.perf_counter()
    print(measure(tests=int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
    print(f"({time.perf_counter() - started:.1f} s)")
