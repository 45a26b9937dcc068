"""``python -m benchmarks --soak SECONDS``: does a long-running ``mockserver serve`` stay flat?

Every request carries a new API key (a new namespace), a new user message and ``store: true``
(a stored completion), which is the worst case for state kept per namespace. With ``body_kib``
(``--soak-body``), every request carries a user message that big, all in one namespace: the
worst case for one journal and one namespace's stored completions, bounded in bytes
(``MOCKSERVER_JOURNAL_BYTES``, ``MOCKSERVER_STORE_BYTES``). The server's RSS
is printed after each slice; the verdict compares the end with the first third of the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from benchmarks.driver import Target, run_load
from benchmarks.servers import HOST, raw_request, spawn
from benchmarks.workloads import CHAT

__all__ = ["run"]

SLICE = 5.0
#: Growth between the first third of the run and its end that still counts as flat.
FLAT = 0.10


def _request(port: int, body_kib: int | None) -> Callable[[int], bytes]:
    padding = "weather " * (body_kib * 128) if body_kib else ""

    def make(n: int) -> bytes:
        body = (
            '{"model":"gpt-4o-mini","store":true,"messages":[{"role":"user","content":'
            f'"Soak request {n}: tell me about the {padding}weather"}}]}}'
        ).encode()
        key = "sk-soak-big" if body_kib else f"sk-soak-{n}"
        return raw_request("POST", "/v1/chat/completions", body, port=port, key=key)

    return make


def run(*, seconds: float, connections: int = 16, body_kib: int | None = None) -> int:
    """Drive the server for ``seconds`` (in slices) with the bundled driver (a new key per
    request, or ``body_kib`` KiB bodies in one namespace) and print RSS samples; 0 if flat."""
    server = spawn("mockserver", raw_request("POST", "/v1/chat/completions", CHAT, port=0))
    samples: list[tuple[float, int, float]] = []
    total = 0
    try:
        what = f"{body_kib} KiB bodies in one namespace" if body_kib else "new API key"
        print(f"soak: {seconds:g} s, {what} + message per request, {connections} conns")
        print(f"{'elapsed s':>10}  {'requests':>10}  {'RSS MiB':>8}")
        started = time.perf_counter()
        print(f"{0.0:>10.1f}  {0:>10,}  {server.rss_mib():>8.1f}", flush=True)
        while (elapsed := time.perf_counter() - started) < seconds:
            span = min(SLICE, seconds - elapsed)
            result = run_load(
                Target(HOST, server.port),
                _request(server.port, body_kib),
                connections=connections,
                duration=span,
            )
            total += result.completed
            rss = server.rss_mib()
            elapsed = time.perf_counter() - started
            samples.append((elapsed, total, rss))
            errors = f"  ({result.errors + result.non_2xx} errors)" if result.errors else ""
            print(f"{elapsed:>10.1f}  {total:>10,}  {rss:>8.1f}{errors}", flush=True)
    finally:
        server.stop()
    if len(samples) < 3:
        print("soak: too short to judge (need 3 samples or more)")
        return 0
    early = max(rss for _, _, rss in samples[: max(1, len(samples) // 3)])
    last = samples[-1][2]
    growth = (last - early) / early
    verdict = "flat" if growth <= FLAT else "GROWING"
    print(
        f"soak: RSS {early:.1f} → {last:.1f} MiB since the first third ({growth:+.1%}): {verdict}"
    )
    return 0 if growth <= FLAT else 1
