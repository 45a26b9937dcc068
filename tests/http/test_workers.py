"""``serve --workers N`` and ``--state``: N processes on one port, refused without shared state;
a Redis that does not answer is a start-up error."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

from mockserver.http.workers import Supervisor
from tests.support.fleet import Serve
from tests.support.redis_server import RedisServer


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mockserver", "serve", "--port", "0", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)


def test_workers_without_shared_state_are_refused_saying_why() -> None:
    result = _serve("--workers", "2")
    assert result.returncode == 2
    assert "--workers 2 needs shared state" in result.stderr
    assert "--state redis://HOST:PORT/DB" in result.stderr
    assert "MOCKSERVER_STATE_URL" in result.stderr


def test_workers_that_would_record_a_cassette_are_refused_before_anything_starts(
    tmp_path: Path,
) -> None:
    """Each worker would write its own cassette: one's recordings lost (seen: 5 of 6 kept)."""
    cassette = tmp_path / "rec.yaml"
    # A Redis that does not answer: the refusal comes first, and needs none.
    result = _serve(
        "--workers",
        "2",
        "--state",
        "redis://127.0.0.1:1/0",
        "--record",
        str(cassette),
        "--upstream",
        "http://127.0.0.1:9/v1",
    )
    assert result.returncode == 2
    assert "--workers 2 with --record: each worker would write the cassette" in result.stderr
    assert "Record with one worker" in result.stderr
    assert not cassette.exists()


def test_workers_that_would_write_a_report_are_refused_saying_where_the_calls_are(
    tmp_path: Path,
) -> None:
    """The report was written by no one (the parent does not serve): refused, not skipped."""
    for flag in ("--report", "--report-junit"):
        report = tmp_path / "report.out"
        result = _serve("--workers", "2", "--state", "redis://127.0.0.1:1/0", flag, str(report))
        assert result.returncode == 2, flag
        assert "--workers 2 with --report/--report-junit" in result.stderr, flag
        assert "GET /__mockserver/calls" in result.stderr, flag
        assert not report.exists()


def test_a_redis_that_does_not_answer_is_a_start_up_error() -> None:
    result = _serve("--state", "redis://127.0.0.1:1/0")
    assert result.returncode == 2
    assert "--state redis://127.0.0.1:1/0: Redis does not answer" in result.stderr


def test_a_state_url_that_is_not_redis_is_refused() -> None:
    result = _serve("--state", "http://127.0.0.1:6379")
    assert result.returncode == 2
    assert "expected redis://HOST:PORT/DB" in result.stderr


def _children(pid: int) -> list[int]:
    found = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False
    )
    return [int(line) for line in found.stdout.split()]


def _workers(parent: int, count: int) -> list[int]:
    deadline = time.monotonic() + 10
    while len(children := _children(parent)) < count:
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.05)
    return children


def test_three_workers_share_one_port_and_one_namespace(redis_server: RedisServer) -> None:
    serve = Serve(["--workers", "3", "--state", redis_server.url, "--clock", "frozen"])
    serve.args += ["--state-prefix", RedisServer.new_prefix()]
    serve.launch()
    try:
        serve.wait_ready()
        assert serve.process is not None
        workers = _workers(serve.process.pid, 3)
        headers = {"Authorization": "Bearer sk-workers"}
        ids = []
        for n in range(30):  # a new connection each: the kernel spreads them over the workers
            answer = httpx.post(
                serve.base_url + "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": f"hi {n}"}]},
                headers=headers,
            )
            assert answer.status_code == 200
            ids.append(answer.headers["x-request-id"])
        assert len(set(ids)) == 30  # numbered from the shared counter: none given twice
        calls = httpx.get(serve.url + "/__mockserver/calls", headers=headers).json()["data"]
        assert [c["seq"] for c in calls] == list(range(1, 31))
        os.kill(workers[0], signal.SIGKILL)  # a worker lost: the others go on serving
        statuses = Counter(
            httpx.post(
                serve.base_url + "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "still?"}]},
                headers=headers,
            ).status_code
            for _ in range(10)
        )
        assert statuses == {200: 10}
        deadline = time.monotonic() + 10  # and another takes its place
        while workers[0] in (now := _children(serve.process.pid)) or len(now) < 3:
            assert time.monotonic() < deadline, f"no worker replaced the lost one: {now}"
            time.sleep(0.05)
    finally:
        assert serve.stop() == 1  # a worker died: the parent says so
    said = "".join(serve.output)
    assert re.search(r"worker \d exited \(-9\); 2 still serving, starting another", said)


def test_a_worker_that_dies_as_it_starts_is_not_started_again_and_again() -> None:
    started: list[int] = []

    def spawn(number: int) -> int:
        pid = os.fork()
        if pid == 0:  # a worker that cannot serve
            os._exit(3)
        started.append(number)
        return pid

    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        supervisor = Supervisor(spawn)
        supervisor.start(1)
        assert supervisor.wait() == 1
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGINT, handlers[1])
    assert started == [1] * Supervisor.GIVE_UP


def _said(serve: Serve, text: str, *, seconds: float = 15) -> int:
    """How many lines hold ``text`` once one does and every worker has had time to say it."""
    deadline = time.monotonic() + seconds
    while not any(text in line for line in serve.output):
        assert time.monotonic() < deadline, f"never said {text!r}:\n{''.join(serve.output)}"
        time.sleep(0.05)
    time.sleep(1.5)  # three of the watchers' polls
    return sum(text in line for line in serve.output)


def test_each_worker_reloads_a_watched_save_and_one_says_so(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nrules:\n  - reply: {text: before}\n", encoding="utf-8")
    serve = Serve(["--workers", "2", "--state", redis_server.url, "--scenario", str(path)])
    serve.args += ["--watch", "--state-prefix", RedisServer.new_prefix()]
    serve.launch()
    try:
        serve.wait_ready()
        assert serve.process is not None
        _workers(serve.process.pid, 2)
        time.sleep(1)  # both watchers have read the file as it was
        path.write_text("name: w\nrules: [\n", encoding="utf-8")
        assert _said(serve, "scenario not reloaded") == 1
        path.write_text("name: w\nrules:\n  - reply: {text: after}\n", encoding="utf-8")
        assert _said(serve, "reloaded w") == 1
        answers = {  # a new connection each: both workers answer, each with the new version
            httpx.post(
                serve.base_url + "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": f"hi {n}"}]},
                headers={"Authorization": "Bearer sk-watch"},
            ).json()["choices"][0]["message"]["content"]
            for n in range(10)
        }
        assert answers == {"after"}
    finally:
        serve.stop()
