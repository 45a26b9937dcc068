"""``python -m benchmarks --scaling``: W1v (a new message per request, 16 connections) on one
worker and on ``--workers 2`` (to ``--max-workers N``), with memory state and with Redis state,
what a request costs in Redis round trips, and whose CPU each row used.

Redis runs as a ``redis-server`` of the benchmark's own (loopback, no persistence). The round
trips are Redis's own count of the calls it was sent (``INFO commandstats``: the script calls,
and the reads a request may make outside one), over the requests the namespace journaled. The
cores each row's server, Redis and load generator used come from the kernel's counts
(:mod:`benchmarks.cpu`); ``--cpu-per-worker CORES`` caps each server at that many cores per
worker, so that several workers are compared with one on equal shares of a core each, the load
generator and Redis outside the cap.

The run's first row is the baseline (:mod:`benchmarks.baseline`, one process) under the same
load and the same cap as one worker: each row's rate is also a ratio to it, and the run says
how many Redis-backed workers, each on that share, it takes to reach issue 22's W1v target for
one process (:data:`~benchmarks.workloads.W1V_TARGET` × the baseline). Where one process cannot
reach it, that is how many workers close the gap, measured rather than projected.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import orjson
import redis

from benchmarks.cpu import Cap, CapError, Usage, cap, measure_cpu
from benchmarks.servers import (
    ROOT,
    Server,
    _command,
    _environment,
    _status_of,
    free_port,
    raw_request,
)
from benchmarks.workloads import CHAT, W1V, W1V_TARGET, Load, Workload, drive

__all__ = ["redis_server", "run"]

#: W1v over 16 API keys (namespaces): what many clients of a load test look like.
W1V_KEYS = Workload("/v1/chat/completions", varied=True, keys=16)
#: The same, each connection with an API key of its own.
W1V_CONNECTIONS = Workload("/v1/chat/completions", varied=True, per_connection=True)
#: Calls a request makes to Redis itself (commands inside a script are counted apart).
_CALLS = ("cmdstat_evalsha", "cmdstat_eval", "cmdstat_hget", "cmdstat_hgetall", "cmdstat_exec")
#: (state, workers, API keys: 0 for one per connection); state ``"baseline"`` is the baseline.
Config = tuple[str, int, int]
BASELINE: Config = ("baseline", 1, 1)


def configs(max_workers: int = 2, spreads: tuple[int, ...] = (1, 16, 0)) -> tuple[Config, ...]:
    """The baseline (one process; API keys are nothing to it), then per spread of API keys:
    one in-memory worker, then 1 to ``max_workers`` Redis-backed ones."""
    return (
        BASELINE,
        *(
            config
            for keys in spreads
            for config in (
                ("memory", 1, keys),
                *(("redis", workers, keys) for workers in range(1, max_workers + 1)),
            )
        ),
    )


def _spread(keys: int) -> str:
    return "a key per connection" if keys == 0 else f"{keys} key(s)"


def redis_server(binary: str) -> tuple[subprocess.Popen[bytes], str]:
    """A ``redis-server`` of the run's own on a free loopback port, answering, and its URL
    (the scaling rows' and ``--instructions --redis``'s)."""
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            return process, url
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.02)


def _spawn(state: str, workers: int, prefix: str, group: Cap | None, *, url: str) -> Server:
    """The baseline, or mockserver with ``workers`` on ``state`` ("memory", or "redis" at
    ``url``), started in ``group``; it has answered a 200 when this returns."""
    port = free_port()
    name = "baseline" if state == "baseline" else "mockserver"
    command = _command(name, port)
    if name == "mockserver":
        command += ["--workers", str(workers)]
    if state == "redis":
        command += ["--state", url, "--state-prefix", prefix]
    handle, log_name = tempfile.mkstemp(prefix="bench-scaling-", suffix=".log")
    process = subprocess.Popen(
        command,
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=_environment(),
        cwd=ROOT,
        preexec_fn=group.enter if group else None,  # in the cgroup before it makes workers
    )
    server = Server(name, port, process, Path(log_name))
    first = raw_request("POST", "/v1/chat/completions", CHAT, port=port)
    deadline = time.monotonic() + 30
    while _status_of(port, first, timeout=30) != 200:
        if process.poll() is not None or time.monotonic() > deadline:
            tail = server.tail()
            server.stop()
            raise RuntimeError(f"{name} did not start:\n{tail}")
        time.sleep(0.01)
    return server


def _calls(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return sum(int(stats[name]["calls"]) for name in _CALLS if name in stats)


def _journaled(client: redis.Redis, prefix: str) -> int:
    """Requests the benchmark's namespaces have journaled (their journal numbers)."""
    total = 0
    for key in client.scan_iter(match=f"{prefix}:ns:sk-bench*:state", count=1000):
        state = client.get(key)
        total += int(orjson.loads(state)["journal_seq"]) if state else 0
    return total


#: The parties whose cores a row reports, in :class:`Usage`'s field names.
PARTIES = ("server", "redis", "load")


def _measure(
    config: Config,
    number: int,
    *,
    url: str,
    redis_pid: int,
    client: redis.Redis,
    duration: float,
    driver: str,
    cores: float | None,
) -> tuple[float, float | None, Usage]:
    """One row, once: its rate, its round trips a request (Redis only), and its CPU."""
    state, workers, keys = config
    workload = W1V_KEYS if keys > 1 else W1V_CONNECTIONS if keys == 0 else W1V
    prefix = f"bench{number}-{state}{workers}-k{keys}"
    with ExitStack() as stack:
        group = stack.enter_context(cap(prefix, cores * workers)) if cores else None
        server = _spawn(state, workers, prefix, group, url=url)
        stack.callback(server.stop)  # before the cgroup goes: its processes must have ended
        drive(workload, server.name, server.port, Load(4, min(0.3, duration), "python"))
        calls, journaled = _calls(client), _journaled(client, prefix)
        measured, usage = measure_cpu(
            lambda: drive(workload, server.name, server.port, Load(16, duration, driver)),
            server=server.process.pid,
            redis=redis_pid if state == "redis" else None,
            load_in_process=driver == "python",
        )
        trips = None
        if state == "redis":
            served = _journaled(client, prefix) - journaled
            trips = (_calls(client) - calls) / max(served, 1)
        if measured.errors:
            print(f"  {state} × {workers}: {measured.errors} errors", file=sys.stderr)
        return measured.rate, trips, usage


def run(
    *,
    duration: float,
    rounds: int,
    driver: str,
    cores: float | None = None,
    max_workers: int = 2,
    spreads: tuple[int, ...] = (1, 16, 0),
) -> int:
    binary = shutil.which("redis-server")
    if binary is None:
        print("scaling: redis-server is not installed (Debian: apt-get install redis-server)")
        return 1
    if cores is not None:
        try:
            with cap("probe", cores):
                pass
        except CapError as error:
            print(f"scaling: --cpu-per-worker needs a cgroup CPU quota: {error}")
            return 1
    process, url = redis_server(binary)
    client = redis.Redis.from_url(url)
    rows = configs(max_workers, spreads)
    rates: dict[Config, list[float]] = {config: [] for config in rows}
    trips: dict[Config, list[float]] = {config: [] for config in rows}
    usages: dict[Config, list[Usage]] = {config: [] for config in rows}
    try:
        for number in range(rounds):
            print(f"round {number + 1}/{rounds} …", file=sys.stderr, flush=True)
            for config in rows:
                rate, trip, usage = _measure(
                    config,
                    number,
                    url=url,
                    redis_pid=process.pid,
                    client=client,
                    duration=duration,
                    driver=driver,
                    cores=cores,
                )
                rates[config].append(rate)
                usages[config].append(usage)
                if trip is not None:
                    trips[config].append(trip)
    finally:
        process.terminate()
        process.wait(timeout=10)
    if cores is not None:
        print(
            f"each server capped at {cores:g} core(s) per worker (cgroup CPU quota), the "
            "baseline at one worker's; Redis and the load generator outside the cap"
        )
    print(
        "row  state    workers  keys  req/s (W1v, 16 conns)  Redis round trips/request"
        "  cores: server  Redis  load  req/s per server core"
    )
    median: dict[Config, float] = {}
    for config in rows:
        state, workers, keys = config
        median[config] = rate = statistics.median(rates[config])
        found = trips[config]
        per = f"{statistics.median(found):.2f}" if found else "—"
        spread = "—" if state == "baseline" else "conn" if keys == 0 else str(keys)
        used = [statistics.median(getattr(u, party) for u in usages[config]) for party in PARTIES]
        redis_cores = f"{used[1]:.2f}" if state == "redis" else "—"
        print(
            f"W1v  {state:<8} {workers:<8} {spread:<5} {rate:>21,.0f}  {per:<25}"
            f"  {used[0]:>13.2f}  {redis_cores:>5}  {used[2]:>4.2f}"
            f"  {rate / max(used[0], 1e-9):>21,.0f}"
        )
    for line in summary(median, max_workers, spreads):
        print(line)
    return 0


def summary(median: dict[Config, float], max_workers: int, spreads: tuple[int, ...]) -> list[str]:
    """Each spread's rows as ratios: to one Redis worker, one in-memory worker and the
    baseline; and the fewest Redis workers that reach the W1v target."""
    base = max(median[BASELINE], 1e-9)
    lines = []
    for keys in spreads:
        spread = _spread(keys)
        alone = median[("memory", 1, keys)]
        lines.append(f"one in-memory worker, {spread}: {alone / base:.2f}× the baseline")
        for workers in range(1, max_workers + 1):
            many = median[("redis", workers, keys)]
            versus = (
                f"{many / median[('redis', 1, keys)]:.2f}× one Redis worker, "
                f"{many / max(alone, 1e-9):.2f}× one in-memory worker, "
                if workers > 1
                else ""
            )
            lines.append(
                f"{workers} Redis worker{'s' if workers > 1 else ''}, {spread}: "
                f"{versus}{many / base:.2f}× the baseline"
            )
        ratios = {w: median[("redis", w, keys)] / base for w in range(1, max_workers + 1)}
        reached = [workers for workers, ratio in ratios.items() if ratio >= W1V_TARGET]
        best = max(ratios, key=ratios.__getitem__)
        lines.append(
            f"{spread}: {W1V_TARGET:g}× the baseline (the W1v target for one process) is "
            + (
                f"reached with {reached[0]} Redis workers"
                if reached
                else f"not reached with 1–{max_workers} Redis workers (best: "
                f"{ratios[best]:.2f}× with {best})"
            )
        )
    return lines
