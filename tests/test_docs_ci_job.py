"""The GitHub Actions job of the CI docs, run: its shell steps (taken from the doc's YAML block,
so the doc cannot rot) against a fresh ``mockserver serve`` on a free port, with a tiny suite
of their own; then the report and the JUnit file it left are checked."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import junitparser
import pytest
import yaml

DOC = Path(__file__).resolve().parents[1] / "docs" / "record.md"
JOB = re.compile(r"<!-- ci-job: (\S+) -->\n```yaml\n(.*?)```", re.S)

SCENARIO = """\
name: ci
fallback: strict
rules:
  - {id: greet, when: {last_user: {contains: hello}}, reply: {text: Hello there!}}
  - {id: never, when: {last_user: {contains: never-asked}}, reply: {text: unused}}
"""
SUITE = """\
import os

import openai
import pytest


def ask(text):
    # the SDK reads OPENAI_BASE_URL and OPENAI_API_KEY, as the job sets them
    with openai.OpenAI(max_retries=0) as client:
        assert client.base_url.host == "127.0.0.1"
        return client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
        )


def test_greets():
    assert ask("hello").choices[0].message.content == "Hello there!"


def test_an_unscripted_question_is_refused():
    with pytest.raises(openai.BadRequestError, match="No rule of scenario 'ci' matched"):
        ask("what is the weather?")
"""


def _job() -> dict[str, Any]:
    [(path, text)] = JOB.findall(DOC.read_text())
    assert path == ".github/workflows/tests.yml"
    workflow = yaml.safe_load(text)
    [job] = workflow["jobs"].values()
    assert isinstance(job, dict)
    return job


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _github_env(path: Path) -> dict[str, str]:
    """What the steps so far appended to ``$GITHUB_ENV`` (``NAME=value`` lines)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A user's checkout: the scenario, the suite, its requirements. Stops the server the job
    started if a step failed before the job's own stop step."""
    (tmp_path / "tests" / "scenarios").mkdir(parents=True)
    (tmp_path / "tests" / "scenarios" / "ci.yaml").write_text(SCENARIO)
    (tmp_path / "tests" / "test_app.py").write_text(SUITE)
    (tmp_path / "requirements-ci.txt").write_text("mockserver\nopenai\npytest\n")
    yield tmp_path
    pid = _github_env(tmp_path / "github.env").get("MOCKSERVER_PID")
    if pid is None:
        return
    with contextlib.suppress(OSError):  # gone already: the job's stop step stopped it
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        where = Path(f"/proc/{pid}/cwd").resolve()
        if b"serve" in command and where == tmp_path.resolve():  # still the job's server
            os.kill(int(pid), signal.SIGKILL)


def _environment(job: Mapping[str, Any], project: Path) -> dict[str, str]:
    """The runner's environment: this interpreter's tools first on PATH, the job's env (its
    port replaced by a free one), and pip kept off any index (what the requirements name is
    installed here already: the step checks that, and downloads nothing). The tiny suite needs
    no pytest plugin, and those installed here cost seconds of start-up: none is loaded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update({k: str(v) for k, v in job.get("env", {}).items()})
    assert env["MOCKSERVER_PORT"] == "8000"
    env["MOCKSERVER_PORT"] = str(_free_port())
    env["GITHUB_ENV"] = str(project / "github.env")
    env["PIP_NO_INDEX"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def test_the_documented_ci_job_serves_the_suite_and_leaves_both_reports(project: Path) -> None:
    if shutil.which("curl") is None:
        pytest.skip("the job waits for the server with curl, which this machine lacks")
    job = _job()
    steps = job["steps"]
    assert [s["uses"] for s in steps if "uses" in s] == [
        "actions/checkout@v4",
        "actions/setup-python@v5",
        "actions/upload-artifact@v4",
    ]
    base = _environment(job, project)
    ran = []
    for step in steps:
        if "run" not in step:
            continue
        env = {**base, **_github_env(project / "github.env")}
        env.update({k: str(v) for k, v in step.get("env", {}).items()})
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, (step["name"], result.stdout, result.stderr)
        ran.append((step["name"], result.stdout))
    names = [name for name, _ in ran]
    assert names == [
        "Install",
        "Start mockserver",
        "Wait for mockserver",
        "Run the suite",
        "Stop mockserver (SIGTERM writes the report)",
    ]
    assert "2 passed" in ran[3][1]
    assert (
        "mockserver: report written to mockserver-report.json and mockserver-junit.xml"
        in (ran[4][1])
    )
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    uploaded = upload["with"]["path"].split()
    assert uploaded == ["mockserver-report.json", "mockserver-junit.xml"]
    _check_reports(project / uploaded[0], project / uploaded[1])


def _check_reports(report_path: Path, junit_path: Path) -> None:
    report = json.loads(report_path.read_text())
    assert report["version"] == 1
    assert [(c["namespace"], c["outcome"], c["rule"]) for c in report["calls"]] == [
        ("sk-…0001", "matched", "greet"),
        ("sk-…0001", "miss", None),
    ]
    assert [m["answered"] for m in report["misses"]] == ["refused"]
    assert report["misses"][0]["explanation"].startswith(
        "No rule of scenario 'ci' matched chat request (model 'gpt-4o-mini', last user message "
        "'what is the weather?')."
    )
    assert report["unused_rules"] == [{"scenario": "ci", "rule": "never"}]
    [suite] = list(junitparser.JUnitXml.fromfile(str(junit_path)))
    [case] = list(suite)
    [failure] = case.result
    assert (case.name, suite.tests, suite.failures) == ("sk-…0001", 1, 1)
    assert failure.message.startswith("#2 POST /v1/chat/completions: 400, no rule matched")
    for text in (report_path.read_text(), junit_path.read_text()):
        assert "sk-ci-not-a-real-key-0001" not in text
