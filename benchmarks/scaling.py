"""``python -m benchmarks --scaling``: W1v (a new message per request, 16 connections) on one
worker and on ``--workers 2``, with memory state and with Redis state, and what a request
costs in Redis round trips.

Redis runs as a ``redis-server`` of the benchmark's own (loopback, no persistence). The round
trips are Redis's own count of the calls it was sent (``INFO commandstats``: the script calls,
and the reads a request may make outside one), over the requests the namespace journaled.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

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
CONFIGS = (
    ("memory", 1, 1),
    ("redis", 1, 1),
    ("redis", 2, 1),
    ("memory", 1, 16),
    ("redis", 1, 16),
    ("redis", 2, 16),
    ("memory", 1, 0),
    ("redis", 1, 0),
    ("redis", 2, 0),
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


def _spawn(state: str | None, workers: int, prefix: str) -> Server:
    port = free_port()
    script = shutil.which("mockserver", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "mockserver"]
    command += ["serve", "--port", str(port), "--log-level", "warning", "--workers", str(workers)]
    if state is not None:
        command += ["--state", state, "--state-prefix", prefix]
    handle, log_name = tempfile.mkstemp(prefix="bench-scaling-", suffix=".log")
    process = subprocess.Popen(
        command, stdout=handle, stderr=subprocess.STDOUT, env=_environment(), cwd=ROOT
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


def run(*, duration: float, rounds: int, driver: str) -> int:
    binary = shutil.which("redis-server")
    if binary is None:
        print("scaling: redis-server is not installed (Debian: apt-get install redis-server)")
        return 1
    process, url = _redis_server(binary)
    client = redis.Redis.from_url(url)
    rates: dict[tuple[str, int, int], list[float]] = {config: [] for config in CONFIGS}
    trips: dict[tuple[str, int, int], list[float]] = {config: [] for config in CONFIGS}
    try:
        for number in range(rounds):
            print(f"round {number + 1}/{rounds} …", file=sys.stderr, flush=True)
            for state, workers, keys in CONFIGS:
                workload = W1V_KEYS if keys > 1 else W1V_CONNECTIONS if keys == 0 else W1V
                prefix = f"bench{number}-{state}{workers}-k{keys}"
                server = _spawn(url if state == "redis" else None, workers, prefix)
                try:
                    drive(
                        workload, "mockserver", server.port, Load(4, min(0.3, duration), "python")
                    )
                    calls, journaled = _calls(client), _journaled(client, prefix)
                    measured = drive(
                        workload, "mockserver", server.port, Load(16, duration, driver)
                    )
                    rates[(state, workers, keys)].append(measured.rate)
                    if state == "redis":
                        served = _journaled(client, prefix) - journaled
                        trips[(state, workers, keys)].append(
                            (_calls(client) - calls) / max(served, 1)
                        )
                    if measured.errors:
                        print(f"  {state} × {workers}: {measured.errors} errors", file=sys.stderr)
                finally:
                    server.stop()
    finally:
        process.terminate()
        process.wait(timeout=10)
    print("row  state   workers  keys  req/s (W1v, 16 conns)  Redis round trips/request")
    for state, workers, keys in CONFIGS:
        rate = statistics.median(rates[(state, workers, keys)])
        found = trips[(state, workers, keys)]
        per = f"{statistics.median(found):.2f}" if found else "—"
        spread = "conn" if keys == 0 else str(keys)
        print(f"W1v  {state:<7} {workers:<8} {spread:<5} {rate:>21,.0f}  {per}")
    return 0
