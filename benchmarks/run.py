"""``python -m benchmarks``: mockserver against a bare Starlette app, interleaved, in one run.

Each round spawns both servers afresh (their order alternates between rounds), times each to
its first 200, reads their memory, then drives every selected row on the baseline and on
mockserver back to back. The table shows per-row medians over the rounds, and the median of
the per-round ratios, with the row's target and PASS/MISS.

``--aimock CLI`` and ``--then CHECKOUT`` add a server to every round (the OpenAI rows only):
the fastest peer, and mockserver at another commit. A row whose target is stated against one
of them (W4: 1.1× aimock's; W1, W1v, W3: held, i.e. no slower than then's) is judged
against it when it was measured, else against its target over the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import fixture, inprocess, servers, soak, sockets
from benchmarks.servers import OTHERS, Server, raw_request, spawn
from benchmarks.workloads import (
    ANTHROPIC_HEADERS,
    CHAT,
    CHAT_STREAM,
    CONVERSE_PATH,
    CONVERSE_STREAM,
    GEMINI_PATH,
    GEMINI_STREAM,
    MESSAGES_STREAM,
    OLLAMA_STREAM,
    RESPONSES_STREAM,
    SPREADS,
    VARIED_CONVERSE,
    VARIED_GEMINI,
    VARIED_MESSAGES,
    VARIED_OLLAMA,
    VARIED_RESPONSES,
    VARIED_RESPONSES_STREAM,
    W1V,
    W1V_TARGET,
    Load,
    Workload,
    drive,
    first_chunk_ms,
    wrk_version,
)

__all__ = ["main"]

ROWS = (
    *("W1", "W1v", "W2", "W3", "W4", "W4s", "W4v", "W5", "W6", "W7", "W8"),
    *("M1v", "M3", "G1v", "G3", "B1v", "B3", "O1v", "O3"),
)
#: Spawns of each server a round for W6 (cold start), alternating.
COLD_STARTS = 5
NAMES = ("baseline", "mockserver")

W1 = Workload("/v1/chat/completions")
W3 = Workload("/v1/chat/completions", CHAT_STREAM, base_path="/v1/stream")
W4 = Workload("/v1/responses", RESPONSES_STREAM, base_path="/v1/stream")
W4V = Workload("/v1/responses", varied=True, halves=VARIED_RESPONSES_STREAM, base_path="/v1/stream")
W8 = Workload("/v1/responses", varied=True, halves=VARIED_RESPONSES)
#: The other families' W1v and W3, each held to chat's own ratio (within 15 %).
FAMILY_ROWS = {
    "M1v": Workload("/v1/messages", varied=True, halves=VARIED_MESSAGES, headers=ANTHROPIC_HEADERS),
    "M3": Workload(
        "/v1/messages", MESSAGES_STREAM, base_path="/v1/stream", headers=ANTHROPIC_HEADERS
    ),
    "G1v": Workload(GEMINI_PATH + "generateContent", varied=True, halves=VARIED_GEMINI),
    "G3": Workload(
        GEMINI_PATH + "streamGenerateContent?alt=sse", GEMINI_STREAM, base_path="/v1/stream"
    ),
    "B1v": Workload(CONVERSE_PATH + "converse", varied=True, halves=VARIED_CONVERSE),
    "B3": Workload(CONVERSE_PATH + "converse-stream", CONVERSE_STREAM, base_path="/v1/stream"),
    "O1v": Workload("/api/chat", varied=True, halves=VARIED_OLLAMA),
    "O3": Workload("/api/chat", OLLAMA_STREAM, base_path="/v1/stream"),
}
#: Within 15 % of chat's ratio: a family row's ratio over its chat row's.
OF_CHAT = 0.85
#: The rows the servers of ``--aimock`` and ``--then`` take (aimock's fixture answers these).
OTHER_ROWS = frozenset({"W1", "W1v", "W2", "W3", "W4", "W4v", "W8"})
#: "Held": no slower than at ``--then``'s commit, within what one run's noise moves a ratio.
HELD = 0.95


@dataclass
class Metric:
    """One line of the table: values per round for each server, and what it must reach."""

    row: str
    label: str
    unit: str
    #: ``("ratio", ">=", 0.8)``, ``("ratio", "<=", 1.25)``, ``("abs", "<=", 300)``,
    #: ``("W1v", ">=", 0.85)`` (this row's ratio over that row's) or ``None``.
    target: tuple[str, str, float] | None = None
    #: A target over one of :data:`~benchmarks.servers.OTHERS` (``("aimock", ">=", 1.1)``),
    #: which replaces ``target`` when that server was measured.
    against: tuple[str, str, float] | None = None
    values: dict[str, list[float]] = field(default_factory=lambda: {n: [] for n in NAMES})
    note: str = ""

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def median(self, name: str) -> float | None:
        values = self.values.get(name)
        return statistics.median(values) if values else None

    def ratio(self, over: str = "baseline") -> float | None:
        """The median over rounds of mockserver's value over ``over``'s."""
        pairs = zip(self.values.get(over, []), self.values["mockserver"], strict=False)
        ratios = [m / b for b, m in pairs if b]
        return statistics.median(ratios) if ratios else None

    def judged(self) -> tuple[str, str, float] | None:
        """The target this run judges the row by: ``against`` if its server was measured."""
        if self.against is not None and self.values.get(self.against[0]):
            return self.against
        return self.target

    def verdict(self, of: Metric | None = None) -> str:
        """PASS or MISS (``of``: the row a ``("W1v", …)`` target compares this one with)."""
        target = self.judged()
        if target is None:
            return ""
        kind, op, bound = target
        if kind in OTHERS:
            value = self.ratio(over=kind)
        else:
            value = self.median("mockserver") if kind == "abs" else self.ratio()
        if of is not None:
            reference = of.ratio()
            value = value / reference if value is not None and reference else None
        if value is None:
            return "n/a"
        ok = value >= bound if op == ">=" else value <= bound
        return "PASS" if ok else "MISS"

    def target_text(self) -> str:
        target = self.judged()
        if target is None:
            return ""
        kind, op, bound = target
        sign = "≥" if op == ">=" else "≤"
        if kind == "ratio":
            return f"{sign} {bound:g}×"
        if kind == "abs":
            return f"{sign} {bound:g} {self.unit}"
        return f"{sign} {bound:g}× {kind}'s"


HELD_THEN = ("then", ">=", HELD)


def _metrics() -> list[Metric]:
    return [
        Metric("W1", "chat req/s, 16 conns", "req/s", ("ratio", ">=", 0.8), HELD_THEN),
        Metric(
            "W1v", "chat req/s, new message each", "req/s", ("ratio", ">=", W1V_TARGET), HELD_THEN
        ),
        Metric("W2", "chat req/s, 1 conn", "req/s", ("ratio", ">=", 0.8)),
        Metric("W2", "  p50 latency", "ms", ("ratio", "<=", 1.25)),
        Metric("W2", "  p99 latency", "ms"),
        Metric("W3", "chat streams/s, 16 conns", "streams/s", ("ratio", ">=", 3.0), HELD_THEN),
        Metric("W3", "  time to first chunk", "ms"),
        Metric(
            "W4",
            "Responses streams/s, 16 conns",
            "streams/s",
            ("ratio", ">=", 3.0),
            ("aimock", ">=", 1.1),
        ),
        Metric("W4", "  time to first chunk", "ms"),
        Metric("W4s", "Responses streams/s over sockets, 16", "streams/s"),
        Metric("W4v", "Responses streams/s, new input each", "streams/s"),
        Metric("W8", "Responses req/s, new input each", "req/s"),
        Metric("M1v", "Messages req/s, new message each", "req/s", ("W1v", ">=", OF_CHAT)),
        Metric("M3", "Messages streams/s, 16 conns", "streams/s", ("W3", ">=", OF_CHAT)),
        Metric("G1v", "generateContent req/s, new message", "req/s", ("W1v", ">=", OF_CHAT)),
        Metric("G3", "generateContent streams/s, 16", "streams/s", ("W3", ">=", OF_CHAT)),
        Metric("B1v", "Converse req/s, new message each", "req/s", ("W1v", ">=", OF_CHAT)),
        Metric("B3", "ConverseStream streams/s, 16", "streams/s", ("W3", ">=", OF_CHAT)),
        Metric("O1v", "Ollama chat req/s, new message", "req/s", ("W1v", ">=", OF_CHAT)),
        Metric("O3", "Ollama chat streams/s, 16", "streams/s", ("W3", ">=", OF_CHAT)),
        Metric("W5", "RSS after start", "MiB", ("ratio", "<=", 1.3)),
        Metric("W5", "RSS after W1", "MiB", ("ratio", "<=", 1.3)),
        Metric("W5", "RSS after W1v", "MiB", ("ratio", "<=", 1.3)),
        Metric("W6", "cold start (spawn → 200)", "ms", ("ratio", "<=", 1.2)),
        Metric("W7", "fixture session start", "ms", ("abs", "<=", 300)),
        Metric("W7", "fixture per-test overhead", "ms", ("abs", "<=", 1)),
    ]


def _order(round_: int, names: Sequence[str] = NAMES) -> tuple[str, ...]:
    """The servers in the order a round starts them: alternating, so none is always first."""
    return tuple(names) if round_ % 2 == 0 else tuple(names)[::-1]


def _start(name: str, source: Path | None = None) -> Server:
    """``name`` spawned and answering the W1 request (its ``cold_start`` timed to that)."""
    port = _port()
    first = raw_request("POST", "/v1/chat/completions", CHAT, port=port)
    return spawn(name, first, port=port, source=source)


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.only = set(args.only.split(",")) if args.only else set(ROWS)
        unknown = self.only - set(ROWS)
        if unknown:
            raise SystemExit(f"unknown rows: {', '.join(sorted(unknown))}; known: {ROWS}")
        self.driver = "wrk" if args.driver == "auto" and wrk_version() else args.driver
        if self.driver == "auto":
            self.driver = "python"
        #: The servers measured beside the two (``--aimock``, ``--then``), from their source.
        self.others: dict[str, Path] = {
            name: Path(source).resolve()
            for name, source in (("aimock", args.aimock), ("then", args.then))
            if source
        }
        self.others_now: dict[str, Server] = {}
        self.metrics = _metrics()
        # A family row is held to its chat row's ratio: that row is measured in the same run.
        self.only |= {
            m.target[0]
            for m in self.metrics
            if m.row in self.only and m.target is not None and m.target[0] in ROWS
        }

    def metric(self, row: str, unit_or_label: str) -> Metric:
        return next(
            m for m in self.metrics if m.row == row and (unit_or_label in (m.unit, m.label.strip()))
        )

    def load(self, connections: int) -> Load:
        return Load(connections, self.args.duration, self.driver)

    @contextmanager
    def servers(self, round_: int) -> Iterator[dict[str, Server]]:
        order = _order(round_, (*NAMES, *self.others))
        started: dict[str, Server] = {}
        try:
            for name in order:
                started[name] = _start(name, self.others.get(name))
            yield {name: started[name] for name in order}
        finally:
            for server in started.values():
                server.stop()

    def round(self, number: int) -> None:
        if "W6" in self.only:
            self.cold_starts(number)
        server_rows = self.only - {"W6", "W7"}
        if server_rows:
            with self.servers(number) as servers:
                self.measure(servers)
        if "W7" in self.only:
            self.fixture_round()

    def cold_starts(self, round_: int) -> None:
        """W6: ``COLD_STARTS`` spawns of each server, alternating, each pair a ratio (one spawn
        a round moved the ratio by ±0.1 on a busy machine)."""
        for _ in range(COLD_STARTS):
            for name in _order(round_):
                server = _start(name)
                server.stop()
                self.metric("W6", "ms").add(name, server.cold_start * 1000)

    def measure(self, servers: dict[str, Server]) -> None:
        """The rows on the two servers; the rows of :data:`OTHER_ROWS` on the others too."""
        others = self.others_now = {name: servers.pop(name) for name in self.others}
        for name, server in servers.items():
            self.metric("W5", "RSS after start").add(name, server.rss_mib())
        for name, server in {**servers, **others}.items():  # warm up: lazy imports, caches
            drive(W1, name, server.port, Load(4, min(0.3, self.args.duration), "python"))
        for row, workload, conns in (("W1", W1, 16), ("W1v", W1V, 16), ("W2", W1, 1)):
            if not (row in self.only or (row in ("W1", "W1v") and "W5" in self.only)):
                continue
            self.throughput(row, workload, conns, servers)
            if row in ("W1", "W1v"):  # what repeated requests leave, then new ones
                for name, server in servers.items():
                    self.metric("W5", f"RSS after {row}").add(name, server.rss_mib())
        for row, workload in (("W3", W3), ("W4", W4)):
            if row in self.only:
                self.throughput(row, workload, 16, servers)
                for name, server in servers.items():
                    ttfc = first_chunk_ms(workload, name, server.port, duration=self._short())
                    self.metric(row, "time to first chunk").add(name, ttfc)
        if "W4s" in self.only:
            self.sockets(servers)
        for row, workload in (("W4v", W4V), ("W8", W8), *FAMILY_ROWS.items()):
            if row in self.only:
                self.throughput(row, workload, 16, servers)

    def sockets(self, servers: dict[str, Server]) -> None:
        """W4s: mockserver's W4 streams over 16 sockets; the baseline, which has no socket,
        its W4 streams over 16 HTTP connections (the ratio: the socket against that)."""
        metric = self.metric("W4s", "streams/s")
        for name, server in servers.items():
            if name == "mockserver":
                rate = sockets.streams_per_second(
                    server.port, connections=16, duration=self.args.duration
                )
            else:
                rate = drive(W4, name, server.port, self.load(16)).rate
            metric.add(name, rate)

    def _short(self) -> float:
        return min(1.0, float(self.args.duration))

    def throughput(
        self, row: str, workload: Workload, conns: int, servers: dict[str, Server]
    ) -> None:
        also = self.others_now if row in OTHER_ROWS else {}
        for name, server in {**servers, **also}.items():
            kind = "mockserver" if name == "then" else name  # then's paths are mockserver's
            measured = drive(workload, kind, server.port, self.load(conns))
            if measured.errors:
                print(f"  {row} {name}: {measured.errors} errors", file=sys.stderr)
            metric = next(m for m in self.metrics if m.row == row)
            metric.add(name, measured.rate)
            if row == "W2":
                self.metric("W2", "p50 latency").add(name, measured.p50_ms)
                self.metric("W2", "p99 latency").add(name, measured.p99_ms)

    def fixture_round(self) -> None:
        outcome = fixture.measure(tests=self.args.fixture_tests)
        start, per_test = (
            self.metric("W7", "fixture session start"),
            self.metric("W7", "fixture per-test overhead"),
        )
        if isinstance(outcome, str):
            start.note = per_test.note = outcome
            return
        start.add("mockserver", outcome.session_start_ms)
        per_test.add("mockserver", outcome.per_test_ms)

    def table(self) -> str:
        others = list(self.others)
        head = ("row", "measure", "baseline", "mockserver", "ratio")
        rows = [(*head, *(c for n in others for c in (n, f"mock/{n}")), "target", "verdict")]
        for m in self.metrics:
            if m.row not in self.only:
                continue
            base, mock, ratio = m.median("baseline"), m.median("mockserver"), m.ratio()
            of = None
            if m.target is not None and m.target[0] in ROWS:
                of = next((o for o in self.metrics if o.row == m.target[0]), None)
            verdict = m.verdict(of) if mock is not None or not m.note else "n/a"
            beside: list[str] = []
            for name in others:
                over = m.ratio(over=name)
                beside += [_number(m.median(name)), f"{over:.2f}×" if over is not None else ""]
            rows.append(
                (
                    m.row,
                    f"{m.label} ({m.unit})",
                    _number(base),
                    _number(mock) if mock is not None else (m.note and "n/a") or "—",
                    f"{ratio:.2f}×" if ratio is not None else "",
                    *beside,
                    m.target_text(),
                    verdict,
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
        notes = [f"{m.row}: n/a — {m.note}" for m in self.metrics if m.note and m.row in self.only]
        return "\n".join([*lines, *dict.fromkeys(notes)])

    def header(self) -> str:
        driver = wrk_version() if self.driver == "wrk" else "bundled asyncio driver"
        beside = "".join(
            f"\n{name}: {_describe(name, source)}" for name, source in self.others.items()
        )
        return (
            f"machine: nproc {os.cpu_count()}, {_cpu_model()}, Python {platform.python_version()}, "
            f"{_uvicorn_stack()}\n"
            f"load: {driver}; {self.args.rounds} round(s) × {self.args.duration:g} s per "
            "measurement, servers interleaved; medians over rounds, ratio = median of "
            f"per-round mockserver/baseline{beside}"
        )


def _describe(name: str, source: Path) -> str:
    """What ``--aimock``/``--then`` ran: aimock's version, or then's commit."""
    if name == "aimock":
        for folder in (source.parent, *source.parents):
            package = folder / "package.json"
            if package.is_file():
                version = json.loads(package.read_text()).get("version", "?")
                return f"aimock {version} ({source}), OpenAI rows only"
        return f"{source}, OpenAI rows only"
    done = subprocess.run(
        ["git", "-C", str(source), "log", "-1", "--format=%h %cs"],
        capture_output=True,
        text=True,
        check=False,
    )
    commit = done.stdout.strip() or "not a git checkout"
    return f"mockserver at {commit} ({source}), OpenAI rows only"


def _port() -> int:
    from benchmarks.servers import free_port

    return free_port()


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _uvicorn_stack() -> str:
    import importlib.util

    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    return f"uvicorn http={http} loop={loop}"


def seconds_per_measurement(args: argparse.Namespace) -> float:
    """``--duration``, else 5 s a measurement, and 20 s a level for W9 (as the row is stated)."""
    if args.duration is not None:
        return float(args.duration)
    return 20.0 if args.timing else 5.0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument(
        "--duration",
        type=float,
        help="seconds per measurement (default 5; with --timing, 20 a level, as W9 is stated)",
    )
    parser.add_argument("--only", help=f"comma-separated rows, of {','.join(ROWS)}")
    parser.add_argument(
        "--driver",
        choices=["auto", "wrk", "python"],
        default="auto",
        help="load generator: wrk if installed (auto), or the bundled asyncio driver",
    )
    parser.add_argument(
        "--fixture-tests", type=int, default=1000, help="tests per W7 run (default 1000)"
    )
    parser.add_argument(
        "--aimock",
        metavar="CLI",
        help="measure aimock beside the two (the OpenAI rows; W4 is then judged against it): "
        "its CLI, node_modules/@copilotkit/aimock/dist/cli.js or an aimock executable",
    )
    parser.add_argument(
        "--then",
        metavar="CHECKOUT",
        help="measure mockserver from another checkout beside the two (the OpenAI rows; W1, "
        "W1v and W3 are then judged as held against it), e.g. a git worktree of the commit an "
        "issue's numbers were taken at",
    )
    parser.add_argument(
        "--inprocess",
        action="store_true",
        help="instead of the table: what one request costs in Python, per path, in this "
        "process (no sockets); --rounds runs of --requests requests each",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instead of the table: instructions per request of W1, W3 and W4's repeated "
        "request (or the rows of --only), counted under valgrind's cachegrind",
    )
    parser.add_argument(
        "--redis",
        action="store_true",
        help="with --instructions: each row (default W1v, a new message each) counted with "
        "in-memory state and with Redis state (a redis-server of its own), and Redis's own "
        "time a script call",
    )
    parser.add_argument(
        "--requests",
        type=int,
        help="requests per --inprocess run (default 5000), or counted per --instructions "
        "row (default 1000)",
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="instead of the table: W1v on the baseline, on one worker and on --workers 2 (to "
        "--max-workers), with memory and with Redis state, Redis round trips per request, the "
        "cores each server, Redis and the load generator used, and how many workers reach "
        "W1v's target",
    )
    parser.add_argument(
        "--cpu-per-worker",
        type=float,
        metavar="CORES",
        help="with --scaling: cap each server at CORES cores per worker (a cgroup CPU quota; "
        "needs a cgroup this user may write), Redis and the load generator outside the cap",
    )
    parser.add_argument(
        "--max-workers",
        type=int,
        default=2,
        metavar="N",
        help="with --scaling: Redis-backed rows for 1 to N workers (default 2)",
    )
    parser.add_argument(
        "--keys",
        metavar="SPREADS",
        help="with --scaling: the spreads of API keys to measure, comma-separated: 1 (one "
        "key), 16 (16 keys), conn (a key per connection); default 1,16,conn",
    )
    parser.add_argument(
        "--timing",
        action="store_true",
        help="instead of the table: W9, paced streams held open at each of --levels at once, "
        "their events' arrival against the schedule (see benchmarks/timing.py)",
    )
    parser.add_argument(
        "--levels",
        metavar="N,N",
        help="with --timing: the numbers of streams open at once, comma-separated "
        "(default 250,500,1000,2000)",
    )
    parser.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="instead of the table: drive mockserver for SECONDS with a new API key per "
        "request and print its RSS as it goes",
    )
    parser.add_argument(
        "--soak-body",
        type=int,
        metavar="KIB",
        help="with --soak: every request carries a user message of KIB KiB, all in one "
        "namespace (its journal's bound in bytes is what is tested)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.cpu_per_worker is not None and (not args.scaling or args.cpu_per_worker <= 0):
        parser.error("--cpu-per-worker takes a number of cores above 0, with --scaling")
    if args.max_workers != 2 and (not args.scaling or args.max_workers < 2):
        parser.error("--max-workers takes a number of workers from 2, with --scaling")
    spreads = tuple(dict.fromkeys((args.keys or ",".join(SPREADS)).split(",")))
    if args.keys is not None and (not args.scaling or not set(spreads) <= set(SPREADS)):
        parser.error("--keys takes spreads of 1, 16 and conn, comma-separated, with --scaling")
    if args.redis and not args.instructions:
        parser.error("--redis goes with --instructions")
    if args.levels is not None and not args.timing:
        parser.error("--levels goes with --timing")
    args.duration = seconds_per_measurement(args)
    if args.inprocess:
        return inprocess.run(requests=args.requests or 5000, rounds=args.rounds)
    if args.instructions:
        from benchmarks import instructions

        default = ("W1v",) if args.redis else tuple(instructions.ROWS)
        rows = args.only.split(",") if args.only else default
        return instructions.run(rows, requests=args.requests or 1000, redis_state=args.redis)
    if args.timing:
        from benchmarks import timing

        try:
            levels = tuple(int(n) for n in args.levels.split(",")) if args.levels else timing.LEVELS
        except ValueError:
            parser.error("--levels takes whole numbers of streams, comma-separated")
        print(Bench(args).header().splitlines()[0], flush=True)
        servers.compile_sources()
        return timing.run(levels=levels, duration=args.duration)
    bench = Bench(args)
    if args.scaling:
        from benchmarks import scaling

        print(bench.header(), flush=True)
        return scaling.run(
            duration=args.duration,
            rounds=args.rounds,
            driver=bench.driver,
            cores=args.cpu_per_worker,
            max_workers=args.max_workers,
            spreads=tuple(SPREADS[spread] for spread in spreads),
        )
    if args.soak is not None:
        print(bench.header().splitlines()[0], flush=True)
        return soak.run(seconds=args.soak, body_kib=args.soak_body)
    print(bench.header(), flush=True)
    servers.compile_sources()
    for number in range(args.rounds):
        print(f"round {number + 1}/{args.rounds} …", file=sys.stderr, flush=True)
        bench.round(number)
    print(bench.table())
    return 0
