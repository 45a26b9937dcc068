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

Where the instructions go: run the child under callgrind and read it with
``callgrind_annotate`` (see ``benchmarks/README.md``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence

from benchmarks.inprocess import RESPONSES, Path
from benchmarks.workloads import CHAT, CHAT_STREAM, RESPONSES_STREAM

__all__ = ["ROWS", "count", "run"]

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


def _drive(row: str, requests: int) -> None:
    """The child: start-up, ``WARM`` requests, then ``requests`` more."""
    import uvloop

    from benchmarks.inprocess import protocol_batches
    from mockserver.settings import Settings

    async def drive() -> None:
        batch = await protocol_batches(ROWS[row], Settings(store_limit=STORED))
        await batch(WARM)
        await batch(requests)

    uvloop.run(drive())


def count(row: str, requests: int) -> int:
    """Instructions of a child that makes ``FEW + requests`` requests of ``row``, all told."""
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


def run(rows: Sequence[str] = tuple(ROWS), *, requests: int = 1000) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 1
    unknown = set(rows) - set(ROWS)
    if unknown:
        print(f"--instructions measures {', '.join(ROWS)}, not {', '.join(unknown)}")
        return 2
    print(
        f"instructions per request (cachegrind; {requests:,} requests more than {FEW} after "
        f"{WARM} of warm-up, as HTTP bytes into the protocol, under uvloop)"
    )
    print(f"{'row':4}  {'its repeated request':30}  {'instructions':>12}")
    for row in rows:
        few, many = count(row, 0), count(row, requests)
        print(f"{row:4}  {ROWS[row].label:30}  {(many - few) / requests:12,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    _drive(sys.argv[1], int(sys.argv[2]))
