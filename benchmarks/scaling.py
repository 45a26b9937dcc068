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

import redis

from benchmarks.cpu import Cap, CapError, Usage, cap, measure_cpu
from benchmarks.servers import ROOT, Server, _environment, _status_of, free_port, raw_request
from benchmarks.workloads import CHAT, Load, Workload, drive

__all__ = ["run"]

W1V = Workload("/v1/chat/completions", varied=True)
#: The same, over 16 API keys (namespaces): what many clients of a load test look like.
W1V_KEYS = Workload("/v1/chat/completions", varied=True, keys=16)
#: The same, each connection with an API key of its own.
W1V_CONNECTIONS = Workload("/v1/chat/completions", varied=True, per_connection=True)
#: Calls a request makes to Redis itself (commands inside a script are counted apart).
_CALLS = ("cmdstat_evalsha", "cmdstat_eval", "cmdstat_hget", "cmdstat_hgetall", "cmdstat_exec")
#: (state, workers, API keys: 0 for one per connection).
Config = tuple[str, int, int]


def configs(max_workers: int = 2) -> tuple[Config, ...]:
    """Per spread of API keys (one, 16, one per connection): one in-memory worker, then 1 to
    ``max_workers`` Redis-backed ones."""
    return tuple(
        config
        for keys in (1, 16, 0)
        for config in (
            ("memory", 1, keys),
            *(("redis", workers, keys) for workers in range(1, max_workers + 1)),
        )
    )


def _redis_server(binary: str) -> tuple[subprocess.Popen[bytes], str]:
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


def _spawn(state: str | None, workers: int, prefix: str, group: Cap | None = None) -> Server:
    port = free_port()
    script = shutil.which("mockserver", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "mockserver"]
    command += ["serve", "--port", str(port), "--log-level", "warning", "--workers", str(workers)]
    if state is not None:
        command += ["--state", state, "--state-prefix", prefix]
    handle, log_name = tempfile.mkstemp(prefix="bench-scaling-", suffix=".log")
    process = subprocess.Popen(
        command,
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=_environment(),
        cwd=ROOT,
        preexec_fn=group.enter if group else None,  # in the cgroup before it makes workers
    )
    server = Server("mockserver", port, process, Path(log_name))
    first = raw_request("POST", "/v1/chat/completions", CHAT, port=port)
    deadline = time.monotonic() + 30
    while _status_of(port, first, timeout=30) != 200:
        if process.poll() is not None or time.monotonic() > deadline:
            tail = server.tail()
            server.stop()
            raise RuntimeError(f"mockserver did not start:\n{tail}")
        time.sleep(0.01)
    return server


def _calls(client: redis.Redis) -> int:
    stats = client.info("commandstats")
    return sum(int(stats[name]["calls"]) for name in _CALLS if name in stats)


def _journaled(client: redis.Redis, prefix: str) -> int:
    """Requests the benchmark's namespaces have journaled (their journal numbers)."""
    import pickle

    total = 0
    for key in client.scan_iter(match=f"{prefix}:ns:sk-bench*:state", count=1000):
        state = client.get(key)
        total += int(pickle.loads(state)[1]) if state else 0
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
        server = _spawn(url if state == "redis" else None, workers, prefix, group)
        stack.callback(server.stop)  # before the cgroup goes: its processes must have ended
        drive(workload, "mockserver", server.port, Load(4, min(0.3, duration), "python"))
        calls, journaled = _calls(client), _journaled(client, prefix)
        measured, usage = measure_cpu(
            lambda: drive(workload, "mockserver", server.port, Load(16, duration, driver)),
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
    process, url = _redis_server(binary)
    client = redis.Redis.from_url(url)
    rows = configs(max_workers)
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
            f"each server capped at {cores:g} core(s) per worker (cgroup CPU quota); "
            "Redis and the load generator outside the cap"
        )
    print(
        "row  state   workers  keys  req/s (W1v, 16 conns)  Redis round trips/request"
        "  cores: server  Redis  load  req/s per server core"
    )
    median: dict[Config, float] = {}
    for config in rows:
        state, workers, keys = config
        median[config] = rate = statistics.median(rates[config])
        found = trips[config]
        per = f"{statistics.median(found):.2f}" if found else "—"
        spread = "conn" if keys == 0 else str(keys)
        used = [statistics.median(getattr(u, party) for u in usages[config]) for party in PARTIES]
        redis_cores = f"{used[1]:.2f}" if state == "redis" else "—"
        print(
            f"W1v  {state:<7} {workers:<8} {spread:<5} {rate:>21,.0f}  {per:<25}"
            f"  {used[0]:>13.2f}  {redis_cores:>5}  {used[2]:>4.2f}"
            f"  {rate / max(used[0], 1e-9):>21,.0f}"
        )
    for keys in dict.fromkeys(keys for _, _, keys in rows):
        spread = "a key per connection" if keys == 0 else f"{keys} key(s)"
        for workers in range(2, max_workers + 1):
            many = median[("redis", workers, keys)]
            print(
                f"{workers} Redis workers, {spread}: {many / median[('redis', 1, keys)]:.2f}× "
                f"one Redis worker, {many / median[('memory', 1, keys)]:.2f}× one in-memory "
                "worker"
            )
    return 0
