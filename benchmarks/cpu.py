"""Whose CPU a measurement used, and a cap on a server's.

On a machine where the servers, Redis and the load generator share the cores, a rate alone
does not say whether a server was short of work or short of a core. So each scaling row also
says how many cores each party used over the measured window, from the kernel's own counts:

- the server: the ``serve`` process and every process under it (its workers), from
  ``/proc/PID/stat`` before and after;
- Redis: the ``redis-server`` process, the same way;
- the load generator: wrk's user and system time (``getrusage`` of this process's children:
  wrk is the one child that ends within the window), or this process's own when the bundled
  driver runs here.

A cap (``--cpu-per-worker CORES``) puts a server's process tree in a cgroup of its own whose
CPU quota is ``CORES`` × its workers (cgroup v2 ``cpu.max``, or v1 ``cpu.cfs_quota_us``): each
worker then has the same share of a core, whatever else runs, and the load generator and Redis
run outside it on what is left. One worker at half a core against two at half a core each is
a question the machine can answer even when it has no spare core for a second worker.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = ["Cap", "CapError", "Usage", "cap", "measure_cpu", "own_waited", "tree_waited"]

T = TypeVar("T")
_TICK = os.sysconf("SC_CLK_TCK")
#: The quota's period: short enough that a throttled worker is not held off for long at a
#: time (the kernel's default is 100 ms), long enough to cost nothing.
PERIOD_US = 20_000


def _pids(root: int) -> Iterator[int]:
    """``root`` and every process under it, from each process's parent in ``/proc`` (a
    kernel without ``/proc/PID/task/TID/children`` has these too)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
        children.setdefault(parent, []).append(int(entry.name))
    stack = [root]
    while stack:
        pid = stack.pop()
        yield pid
        stack += children.get(pid, [])


def _process_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0  # ended: its time is no longer counted anywhere we look
    # After the command's ")": state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    return (int(fields[11]) + int(fields[12])) / _TICK


def tree_seconds(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and the processes under it."""
    return sum(_process_seconds(each) for each in _pids(pid))


def _waited_seconds(pid: int) -> float:
    """Seconds ``pid``'s threads have spent runnable but waiting for a core (the run queue's
    delay, ``/proc/PID/task/TID/schedstat``'s second field, in nanoseconds)."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return 0.0
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile, or a kernel without schedstats
    return total / 1e9


def tree_waited(pid: int) -> float:
    """Seconds ``pid`` and the processes under it have waited for a core so far."""
    return sum(_waited_seconds(each) for each in _pids(pid))


def own_waited() -> float:
    """Seconds this process has waited for a core so far."""
    return _waited_seconds(os.getpid())


def _children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True, slots=True)
class Usage:
    """Cores used over a window: CPU seconds over its wall-clock seconds."""

    server: float
    redis: float
    load: float


def measure_cpu(
    run: Callable[[], T], *, server: int, redis: int | None, load_in_process: bool
) -> tuple[T, Usage]:
    """``run()``, and the cores each party used while it ran (see the module's docstring)."""

    def now() -> tuple[float, float, float, float]:
        return (
            time.perf_counter(),
            tree_seconds(server),
            _process_seconds(redis) if redis else 0.0,
            _own_seconds() if load_in_process else _children_seconds(),
        )

    start = now()
    result = run()
    wall, *used = (after - before for after, before in zip(now(), start, strict=True))
    server_s, redis_s, load_s = used
    return result, Usage(server_s / wall, redis_s / wall, load_s / wall)


class CapError(RuntimeError):
    """No cgroup CPU controller this process may write to."""


@dataclass(frozen=True, slots=True)
class Cap:
    """A cgroup with a CPU quota; :meth:`enter` runs in a child before it execs."""

    path: Path
    version: int

    def enter(self) -> None:
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def remove(self) -> None:
        with suppress(OSError):  # a process still in it: left for the kernel to free
            self.path.rmdir()


def _cpu_hierarchy() -> tuple[Path, int]:
    """Where a cpu controller is mounted: cgroup v2 (if it has ``cpu``), else v1's."""
    v1: Path | None = None
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, where, kind, options, *_ = line.split()
        if kind == "cgroup2":
            controllers = Path(where, "cgroup.controllers")
            if controllers.exists() and "cpu" in controllers.read_text().split():
                return Path(where), 2
        elif kind == "cgroup" and "cpu" in options.split(","):
            v1 = Path(where)
    if v1 is None:
        raise CapError("no cgroup cpu controller is mounted (/proc/self/mounts)")
    return v1, 1


@contextmanager
def cap(name: str, cores: float) -> Iterator[Cap]:
    """A new cgroup ``name`` limited to ``cores`` cores, removed afterwards."""
    root, version = _cpu_hierarchy()
    path = root / f"mockserver-bench-{name}-{os.getpid()}"
    quota = max(1000, round(cores * PERIOD_US))
    try:
        path.mkdir()
        if version == 2:
            (root / "cgroup.subtree_control").write_text("+cpu")
            (path / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            (path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (path / "cpu.cfs_quota_us").write_text(str(quota))
    except OSError as error:
        with suppress(OSError):
            path.rmdir()
        raise CapError(f"cannot make a cgroup with a CPU quota under {root}: {error}") from None
    group = Cap(path, version)
    try:
        yield group
    finally:
        group.remove()
