"""The scaling benchmark's CPU accounting and its cap (``benchmarks/cpu.py``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from benchmarks.cpu import CapError, cap, tree_seconds

#: A parent that starts a child which spends ``0.3`` s of its own CPU, says so, and waits.
_PARENT = textwrap.dedent(
    """
    import subprocess, sys
    child = subprocess.Popen([sys.executable, "-c", '''
    import sys, time
    while time.process_time() < 0.3:
        pass
    print("spent", flush=True)
    sys.stdin.read()
    '''], stdout=sys.stdout, stdin=subprocess.PIPE)
    sys.stdin.read()
    child.stdin.close()
    child.wait()
    """
)


def test_a_servers_cpu_counts_the_processes_under_it() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as parent:
        assert parent.stdin is not None
        assert parent.stdout is not None
        try:
            assert parent.stdout.readline() == "spent\n"
            # The child's 0.3 s are its own (the parent only waits): counted under the parent.
            assert tree_seconds(parent.pid) >= 0.29
        finally:
            parent.stdin.close()
            parent.wait(timeout=10)


def test_a_capped_process_and_what_it_starts_run_in_a_cgroup_with_the_quota() -> None:
    try:
        with cap("test", 0.25) as group:
            quota = (
                (group.path / "cpu.max").read_text().split()
                if group.version == 2
                else [
                    (group.path / "cpu.cfs_quota_us").read_text().strip(),
                    (group.path / "cpu.cfs_period_us").read_text().strip(),
                ]
            )
            assert int(quota[0]) / int(quota[1]) == 0.25
            done = subprocess.run(
                [sys.executable, "-c", "import os; print(open('/proc/self/cgroup').read())"],
                preexec_fn=group.enter,
                capture_output=True,
                text=True,
                check=True,
            )
            assert group.path.name in done.stdout  # the child's own child is inside too
        assert not group.path.exists()  # removed once its processes ended
    except CapError as error:
        pytest.skip(f"no cgroup CPU quota here: {error}")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--cpu-per-worker", "0.5"], "--cpu-per-worker takes a number of cores above 0"),
        (["--max-workers", "3"], "--max-workers takes a number of workers from 2"),
        (["--scaling", "--max-workers", "1"], "--max-workers takes a number of workers from 2"),
        (["--keys", "conn"], "--keys takes spreads of 1, 16 and conn, comma-separated"),
        (["--scaling", "--keys", "1,2"], "--keys takes spreads of 1, 16 and conn, comma-separated"),
    ],
)
def test_the_scaling_options_are_for_the_scaling_rows_only(argv: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert f"{said}, with --scaling" in done.stderr
