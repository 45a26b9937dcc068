"""The benchmark command runs: one very short round, and its table prints (no timing asserted)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def benchmarks(*args: str) -> list[str]:
    """``python -m benchmarks *args`` from the checkout: its output lines (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_one_short_round_prints_the_table() -> None:
    lines = benchmarks("--rounds", "1", "--duration", "0.5", "--only", "W1", "--driver", "python")
    assert lines[0].startswith("machine: nproc")
    header = next(line for line in lines if line.startswith("row "))
    columns = ["row", "measure", "baseline", "mockserver", "ratio", "target", "verdict"]
    assert header.split() == columns
    [row] = [line for line in lines if line.startswith("W1 ")]
    assert row.split()[-1] in ("PASS", "MISS")


def test_new_responses_requests_whole_and_streamed_are_reported_as_ratios() -> None:
    lines = benchmarks(
        "--rounds", "1", "--duration", "0.3", "--only", "W4v,W8", "--driver", "python"
    )
    rows = {line.split()[0]: line for line in lines if line.startswith(("W4v ", "W8 "))}
    assert set(rows) == {"W4v", "W8"}, lines
    for row in rows.values():
        assert row.split()[-1].endswith("×"), row  # a ratio, and no target


def test_the_in_process_costs_print_a_line_per_path() -> None:
    lines = benchmarks("--inprocess", "--rounds", "1", "--requests", "40")
    assert lines[0].startswith("in-process cost of one request")
    rows = lines[2:]
    assert len(rows) == 8, lines  # the lane, the ASGI app, the HTTP protocol
    for row in rows:
        cost, rate = row.split()[-2:]
        assert float(cost) > 0, row
        assert int(rate.replace(",", "")) > 0, row


def test_the_scaling_rows_print_one_line_per_state_and_worker_count() -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    lines = benchmarks("--scaling", "--rounds", "1", "--duration", "0.3", "--driver", "python")
    rows = [line.split() for line in lines if line.startswith("W1v ")]
    assert [row[1:4] for row in rows] == [
        [state, workers, keys]
        for keys in ("1", "16", "conn")
        for state, workers in (("memory", "1"), ("redis", "1"), ("redis", "2"))
    ]
    for row in rows:
        if row[1] == "memory":
            assert row[-1] == "—"
        else:
            assert float(row[-1]) >= 1  # a turn is one round trip at least
