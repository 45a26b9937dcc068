"""``python -m benchmarks --instructions``: what one request of W1, W3 and W4 costs, in
instructions.

On a machine whose cores other work shares, rates move by a tenth or more from run to run;
the instructions a request takes move by well under 1 %, so a change to the per-request path
is measured here. Each row's request (the bytes its row sends) is handed to the HTTP protocol
``serve`` runs (as ``--inprocess``'s "HTTP bytes in" lines: httptools parses it, the lane
answers, a transport that only counts takes the answer) in a child process under uvloop, run
twice under valgrind's cachegrind: after the same start-up and warm-up, once with ``FEW``
requests and once with ``requests`` more. The difference over ``requests`` is one request's
cost; start-up, imports and warm-up cancel out. ``PYTHONHASHSEED`` is fixed in the child, so
its dicts and sets are laid out the same in both runs.

Each row's request is also counted against the yardstick's (``benchmarks/baseline.py``: the
bare Starlette app on uvicorn's own httptools protocol, its chat body or its 20-event stream,
as the wall-clock rows compare them), so the rows' ratio to the baseline can be read without
the noise of a shared machine. The counts are the process's own instructions: the kernel's
work for each write (one a request for mockserver, one an event for the baseline's stream) is
not in them.

With ``--redis``, each row is counted twice, with the in-memory state and with Redis state (a
``redis-server`` of the run's own, on loopback): what a Redis-backed request costs the server
beside an in-memory one (issue 35's question), with Redis's own time a script call beside it
(its ``INFO commandstats``: Redis runs outside cachegrind). Each answer is then awaited before
the next request is handed in, as the turn is written to Redis first. ``W1v`` (a new message
each: every request a fresh turn) can be chosen with ``--only``; ``--redis`` counts it by
default.

Where the instructions go: run the child under callgrind and read it with
``callgrind_annotate`` (see ``benchmarks/README.md``).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence

from benchmarks.inprocess import RESPONSES, Path
from benchmarks.workloads import CHAT, CHAT_STREAM, RESPONSES_STREAM

__all__ = ["BASELINE", "ROWS", "count", "run"]

#: The rows measured, each with the request its row sends (``workloads.py``), as HTTP bytes in.
ROWS = {
    "W1": Path("chat completion", lambda n: CHAT, via="protocol", repeat=True),
    "W3": Path("chat stream, 20 events", lambda n: CHAT_STREAM, via="protocol", repeat=True),
    "W4": Path(
        "Responses stream, 24 events",
        lambda n: RESPONSES_STREAM,
        target=RESPONSES,
        via="protocol",
        repeat=True,
    ),
}
#: Rows that --only (or --redis) chooses: a request the lane has not seen, each time.
W1V_BODY = (
    b'{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Tell me about order %d"}]}'
)
VARIED = {"W1v": Path("chat completion, a new message", lambda n: W1V_BODY % n, via="protocol")}

#: What the baseline is asked in each row's place (as the wall-clock rows ask it).
BASELINE = {
    "W1": "/v1/chat/completions",
    "W1v": "/v1/chat/completions",
    "W3": "/v1/stream",
    "W4": "/v1/stream",
}
#: Requests after the warm-up in the shorter of the two runs.
FEW = 100
#: Requests of warm-up before either run's counted ones: the recipe filed, and more than the
#: namespace's journal keeps (``journal_limit``) and the stored responses it keeps (``STORED``),
#: so each counted request also drops an entry and a stored response, as in a load test of
#: more than a few seconds.
WARM = 1200
#: The child's ``store_limit``: a W4 run reaches the default 10,000 within its first seconds
#: (from then on, each request stores one and drops one); 10,000 of warm-up under cachegrind
#: would take minutes.
STORED = 1000
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def _drive(row: str, requests: int, server: str = "mockserver") -> None:
    """The child: start-up, ``WARM`` requests, then ``requests`` more (``server``: mockserver,
    the baseline, or mockserver on the Redis at that URL, under a prefix of its own)."""
    import uvloop

    from benchmarks.inprocess import protocol_batches
    from mockserver.settings import Settings

    settings = Settings(store_limit=STORED)
    if server.startswith("redis://"):
        prefix = f"bench-instructions-{os.getpid()}"
        settings = Settings(store_limit=STORED, state_url=server, state_prefix=prefix)

    async def drive() -> None:
        if server == "baseline":
            batch = await _baseline_batches(BASELINE[row])
        else:
            batch = await protocol_batches({**ROWS, **VARIED}[row], settings)
        await batch(WARM)
        await batch(requests)

    uvloop.run(drive())


async def _baseline_batches(target: str) -> Callable[[int], Awaitable[None]]:
    """The baseline app on uvicorn's httptools protocol and a transport that only counts: what
    hands it ``size`` requests, one after the other, each answered before the next."""
    import uvicorn
    from uvicorn.server import ServerState

    from benchmarks.baseline import app
    from benchmarks.inprocess import HEADERS, _Counting

    config = uvicorn.Config(app, http="httptools", log_level="warning", lifespan="off", ws="none")
    config.load()
    state = ServerState()
    protocol = config.http_protocol_class(config=config, server_state=state, app_state={})
    transport = _Counting()
    protocol.connection_made(transport)
    body = CHAT if target == "/v1/chat/completions" else CHAT_STREAM
    head = b"".join(b"%b: %b\r\n" % pair for pair in HEADERS)
    request = b"POST %b HTTP/1.1\r\n%bcontent-length: %d\r\n\r\n%b" % (
        target.encode(),
        head,
        len(body),
        body,
    )

    async def batch(size: int) -> None:
        for _ in range(size):
            writes = transport.writes
            protocol.data_received(request)
            while not protocol.cycle.response_complete:
                await asyncio.sleep(0)
            if transport.writes == writes:
                raise RuntimeError(f"the baseline wrote nothing to {target}")

    return batch


def count(row: str, requests: int, server: str = "mockserver") -> int:
    """Instructions of a child that makes ``FEW + requests`` requests of ``row`` (to
    ``server``: mockserver or the baseline), all told."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "benchmarks.instructions",
        row,
        str(FEW + requests),
        server,
    ]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = _REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{row}: the child under cachegrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def run(
    rows: Sequence[str] = tuple(ROWS), *, requests: int = 1000, redis_state: bool = False
) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 1
    unknown = set(rows) - set(ROWS) - set(VARIED)
    if unknown:
        known = ", ".join([*ROWS, *VARIED])
        print(f"--instructions measures {known}, not {', '.join(unknown)}")
        return 2
    if redis_state:
        return _run_redis(rows, requests=requests)
    print(
        f"instructions per request (cachegrind; {requests:,} requests more than {FEW} after "
        f"{WARM} of warm-up, as HTTP bytes into the protocol, under uvloop)"
    )
    print(
        f"{'row':4}  {'its repeated request':30}  {'mockserver':>10}  {'baseline':>10}  "
        f"{'ratio':>6}"
    )
    for row in rows:
        ours, base = (
            (count(row, requests, server) - count(row, 0, server)) / requests
            for server in ("mockserver", "baseline")
        )
        print(
            f"{row:4}  {ROWS[row].label:30}  {ours:10,.0f}  {base:10,.0f}  {base / ours:5.2f}×",
            flush=True,
        )
    print("ratio: the baseline's instructions a request over mockserver's (as the rows' ratios)")
    return 0


def _run_redis(rows: Sequence[str], *, requests: int) -> int:
    """Each row with in-memory state and with Redis state, and Redis's own time a call."""
    import redis

    from benchmarks.scaling import redis_server

    binary = shutil.which("redis-server")
    if binary is None:
        print("redis-server is not installed (Debian: apt-get install redis-server)")
        return 1
    process, url = redis_server(binary)
    admin = redis.Redis.from_url(url)
    try:
        print(
            f"instructions per request, in-memory and Redis state (cachegrind; {requests:,} "
            f"requests more than {FEW} after {WARM} of warm-up, each answer awaited)"
        )
        print(
            f"{'row':4}  {'its request':30}  {'memory':>10}  {'Redis':>10}  {'Redis − memory':>14}"
            f"  {'ratio':>6}  {'Redis µs a call':>15}"
        )
        for row in rows:
            memory = (count(row, requests) - count(row, 0)) / requests
            shared = (count(row, requests, url) - count(row, 0, url)) / requests
            admin.config_resetstat()  # Redis's time a call: with the child at full speed (one
            # under cachegrind leaves Redis idle between calls, and a call slower for it)
            child = [sys.executable, "-m", "benchmarks.instructions", row, str(requests), url]
            subprocess.run(child, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            calls = admin.info("commandstats").get("cmdstat_evalsha", {})
            per_call = calls.get("usec", 0) / max(calls.get("calls", 0), 1)
            label = {**ROWS, **VARIED}[row].label
            print(
                f"{row:4}  {label:30}  {memory:10,.0f}  {shared:10,.0f}  {shared - memory:14,.0f}"
                f"  {shared / memory:5.2f}×  {per_call:15.1f}",
                flush=True,
            )
    finally:
        process.terminate()
        process.wait()
    print("ratio: a Redis-backed request's instructions over an in-memory one's (the server's")
    print("own); Redis's time a script call: its own count, over a run of the child at full speed")
    return 0


if __name__ == "__main__":
    _drive(sys.argv[1], int(sys.argv[2]), *sys.argv[3:4])
