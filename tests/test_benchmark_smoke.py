"""The benchmark command runs: one very short round, and its table prints (no timing asserted)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent


def benchmarks(*args: str, module: str = "benchmarks", timeout: float = 120) -> list[str]:
    """``python -m benchmarks *args`` (or another ``module``) from the checkout: its output
    lines (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
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
    from benchmarks.inprocess import PATHS

    assert len(rows) == len(PATHS) == 18, lines  # the lane, the ASGI app, the HTTP protocol
    for row in rows:
        cost, rate = row.split()[-2:]
        assert float(cost) > 0, row
        assert int(rate.replace(",", "")) > 0, row


def test_the_scaling_rows_print_one_line_per_state_and_worker_count() -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    quick = ("--rounds", "1", "--duration", "0.3", "--driver", "python")
    lines = benchmarks("--scaling", *quick, "--max-workers", "3")
    rows = [line.split() for line in lines if line.startswith("W1v ")]
    assert [row[1:4] for row in rows] == [
        ["baseline", "1", "—"],
        *(
            [state, workers, keys]
            for keys in ("1", "16", "conn")
            for state, workers in (("memory", "1"), ("redis", "1"), ("redis", "2"), ("redis", "3"))
        ),
    ]
    for row in rows:
        trips, server_cores, redis_cores, load_cores, per_core = row[5:]
        if row[1] != "redis":
            assert trips == redis_cores == "—"
        else:
            assert float(trips) >= 1  # a turn is one round trip at least
            # Counted in the kernel's clock ticks (10 ms): 0.3 s of a loaded machine may give
            # Redis none; a number is what the row must show.
            assert float(redis_cores) >= 0
        assert float(server_cores) > 0  # the server's own process tree did the work
        assert float(load_cores) > 0  # the bundled driver runs in the benchmark's process
        assert int(per_core.replace(",", "")) > 0
    ratios = [line.split(",")[0] for line in lines if " Redis workers, " in line]
    assert ratios == ["2 Redis workers", "3 Redis workers"] * 3, lines
    # Every worker row is also a ratio to the baseline, and each spread says how many
    # workers reach the one-process target (or that 1–3 do not).
    to_baseline = [line for line in lines if line.endswith("× the baseline")]
    assert len(to_baseline) == 3 * 4, lines
    verdicts = [line for line in lines if "(the W1v target for one process)" in line]
    assert [line.split(":")[0] for line in verdicts] == [
        "1 key(s)",
        "16 key(s)",
        "a key per connection",
    ]
    for line in verdicts:
        assert "reached with" in line or "not reached with 1–3 Redis workers (best:" in line


def test_the_scaling_rows_take_only_the_spreads_of_keys_asked_for() -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    quick = ("--rounds", "1", "--duration", "0.3", "--driver", "python")
    lines = benchmarks("--scaling", *quick, "--keys", "conn")
    rows = [line.split()[1:4] for line in lines if line.startswith("W1v ")]
    assert rows == [
        ["baseline", "1", "—"],
        ["memory", "1", "conn"],
        ["redis", "1", "conn"],
        ["redis", "2", "conn"],
    ]


def test_wrk_gives_each_connection_its_key_and_every_request_a_message_of_its_own() -> None:
    """The per-connection W1v load, as wrk sends it, against a server that only listens."""
    if shutil.which("wrk") is None:
        pytest.skip("wrk is not installed (Debian: apt-get install wrk)")
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from benchmarks.scaling import W1V_CONNECTIONS
    from benchmarks.workloads import Load, drive

    seen: list[tuple[int, str, bytes]] = []

    class Listener(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.client_address[1], self.headers["Authorization"], body))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            pass  # wrk hangs up at its deadline, mid-answer: not the test's business

    server = Server(("127.0.0.1", 0), Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        measured = drive(W1V_CONNECTIONS, "mockserver", server.server_port, Load(4, 1, "wrk"))
    finally:
        server.shutdown()
        server.server_close()
    assert measured.errors == 0
    assert len(seen) > 8, seen
    bodies = [body for _, _, body in seen]
    assert len(set(bodies)) == len(bodies), "a message was sent twice"
    keys = {port: {key for p, key, _ in seen if p == port} for port, _, _ in seen}
    assert all(len(each) == 1 for each in keys.values()), keys
    assert len({key for [key] in keys.values()}) == len(keys) == 4, keys


def test_the_timing_rows_print_one_line_per_level_and_where_it_slips() -> None:
    lines = benchmarks("--timing", "--levels", "4,8", "--duration", "1.5")
    assert lines[1].startswith("W9: paced chat streams (ttft 300 ms, 50 tokens/s")
    rows = [line.split("|")[1:-1] for line in lines if line.startswith("| ") and "---" not in line]
    assert [row[0].strip() for row in rows] == ["streams", "4", "8"], lines
    for row in rows[1:]:
        assert int(row[1]) >= 1, row  # streams completed at each level
        assert int(row[2]) == 0, row  # none lost
        assert float(row[3]) >= 300 * 0.9, row  # the ttft was waited (a lower bound only)
    assert lines[-1].startswith("The schedule "), lines


def test_a_family_row_brings_its_chat_row_and_is_judged_against_it() -> None:
    lines = benchmarks(
        "--rounds", "1", "--duration", "0.3", "--only", "M1v,G3", "--driver", "python"
    )
    rows = {
        line.split()[0]: line for line in lines if line.startswith(("W1v ", "W3 ", "M1v", "G3"))
    }
    assert set(rows) == {"W1v", "W3", "M1v", "G3"}, lines
    assert "≥ 0.85× W1v's" in rows["M1v"]
    assert "≥ 0.85× W3's" in rows["G3"]
    for row in ("M1v", "G3"):
        assert rows[row].split()[-1] in ("PASS", "MISS"), rows[row]


def test_the_instruction_counts_child_answers_each_row_from_the_lane() -> None:
    from benchmarks.instructions import ROWS

    assert set(ROWS) == {"W1", "W3", "W4"}
    for row, server in itertools.product(ROWS, ("mockserver", "baseline")):
        # what runs under cachegrind; it raises if the lane (or the baseline) answered fewer
        benchmarks(row, "3", server, module="benchmarks.instructions", timeout=60)


def test_the_instruction_counts_child_runs_on_redis_state(redis_server: RedisServer) -> None:
    """``--instructions --redis``'s child: W1v's new messages, each a turn written to Redis and
    its answer awaited (it raises if the lane answered fewer)."""
    benchmarks("W1v", "3", redis_server.url, module="benchmarks.instructions", timeout=60)
    (state,) = redis_server.client().keys("bench-instructions-*:ns:sk-bench:state")
    assert b'"counter":' in redis_server.client().get(state)  # its turns, written there


def test_redis_state_is_counted_with_instructions_only() -> None:
    from benchmarks.run import main

    with pytest.raises(SystemExit) as refused:
        main(["--redis"])
    assert refused.value.code == 2


def test_the_servers_beside_the_two_are_measured_and_the_targets_judged_by_them(
    tmp_path: Path,
) -> None:
    # A stand-in for aimock's CLI (which needs Node): it checks the command line and the
    # fixture file it is given, then serves W1's request with the baseline.
    seen = tmp_path / "seen.json"
    stand_in = tmp_path / "aimock"
    stand_in.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "args = sys.argv[1:]\n"
        "assert args[0] == '-p' and args[2] == '-f' and args[4:] == ['--log-level', 'silent']\n"
        "fixtures = json.load(open(args[3]))['fixtures']\n"
        f"open({str(seen)!r}, 'w').write(json.dumps(fixtures))\n"
        "baseline = [sys.executable, '-m', 'benchmarks.baseline', '--port', args[1]]\n"
        "os.execv(sys.executable, baseline)\n"
    )
    stand_in.chmod(0o755)
    lines = benchmarks(
        *("--rounds", "1", "--duration", "0.3", "--only", "W1,W5", "--driver", "python"),
        *("--aimock", str(stand_in), "--then", str(ROOT)),
    )
    assert lines[2] == f"aimock: {stand_in}, OpenAI rows only", lines
    assert lines[3].startswith("then: mockserver at "), lines
    header = next(line for line in lines if line.startswith("row "))
    assert header.split()[5:9] == ["aimock", "mock/aimock", "then", "mock/then"], header
    w1 = next(line for line in lines if line.startswith("W1 "))
    assert "≥ 0.95× then's" in w1, w1  # held: judged against the other checkout
    assert w1.split()[-1] in ("PASS", "MISS"), w1
    rss = next(line for line in lines if line.startswith("W5 ") and "after start" in line)
    assert "≤ 1.3×" in rss, rss  # the rows the others do not take keep the baseline's target
    matched = [fixture["match"]["userMessage"] for fixture in json.loads(seen.read_text())]
    assert matched == ["Hello", "Tell me about order"]  # W1's message and W1v's


def test_w9_measures_20_seconds_a_level_as_stated_unless_told() -> None:
    from benchmarks.run import _parser, seconds_per_measurement

    parser = _parser()
    assert seconds_per_measurement(parser.parse_args(["--timing"])) == 20.0
    assert seconds_per_measurement(parser.parse_args([])) == 5.0
    assert seconds_per_measurement(parser.parse_args(["--timing", "--duration", "2"])) == 2.0
