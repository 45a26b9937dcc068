"""``mockserver serve --report/--report-junit``: the files are written when the server stops,
on SIGTERM (what CI and process managers send) as on Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import junitparser
import pytest

from mockserver.cli import main

SCENARIO = """\
name: ci
fallback: strict
rules:
  - {id: greet, when: {last_user: {contains: hello}}, reply: {text: Hello there!}}
  - {id: never, when: {last_user: {contains: never-asked}}, reply: {text: unused}}
"""
KEY = "sk-ci-subprocess-0000000Zz99"


def _serve(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    (tmp_path / "ci.yaml").write_text(SCENARIO)
    command = ["serve", "--port", "0", "--scenario", str(tmp_path / "ci.yaml")]
    command += ["--report", str(tmp_path / "out" / "report.json")]
    command += ["--report-junit", str(tmp_path / "out" / "junit.xml")]
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    assert first.startswith("mockserver listening on http://127.0.0.1:"), first
    return process, first.split()[3]


def _ask(url: str, text: str) -> int:
    deadline = time.monotonic() + 10
    while True:
        try:
            return httpx.post(
                f"{url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": text}]},
                headers={"Authorization": f"Bearer {KEY}"},
            ).status_code
        except httpx.ConnectError:
            assert time.monotonic() < deadline
            time.sleep(0.05)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_serve_writes_the_report_when_it_is_stopped(tmp_path: Path, stop: signal.Signals) -> None:
    process, url = _serve(tmp_path)
    try:
        assert _ask(url, "hello") == 200
        assert _ask(url, "goodbye") == 400  # a strict miss
        assert not (tmp_path / "out" / "report.json").exists()  # written at shutdown, not before
    finally:
        process.send_signal(stop)
        try:
            output, _ = process.communicate(timeout=10)
        finally:
            process.kill()
    assert process.returncode == 0, output
    assert (
        f"mockserver: report written to {tmp_path / 'out' / 'report.json'} and "
        f"{tmp_path / 'out' / 'junit.xml'} (2 call(s), 1 miss(es), 1 error(s), 1 unused rule(s))"
    ) in output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [(c["namespace"], c["outcome"], c["rule"]) for c in report["calls"]] == [
        ("sk-…Zz99", "matched", "greet"),
        ("sk-…Zz99", "miss", None),
    ]
    assert report["unused_rules"] == [{"scenario": "ci", "rule": "never"}]
    [suite] = list(junitparser.JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml")))
    [case] = list(suite)
    assert (case.name, suite.failures) == ("sk-…Zz99", 1)
    assert KEY not in (tmp_path / "out" / "junit.xml").read_text()


def test_serve_refuses_a_report_path_it_could_not_write_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "taken").mkdir()
    assert main(["serve", "--port", "0", "--report", str(tmp_path / "taken")]) == 2
    assert capsys.readouterr().err == (
        f"mockserver: error: cannot write the report to {tmp_path / 'taken'}: it is a folder\n"
    )
