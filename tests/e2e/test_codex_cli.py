"""The Codex CLI (npm ``@openai/codex``) with its built-in provider pointed at
``mockserver serve``: it opens the Responses socket first, and ``codex exec`` runs a scripted
shell call to the end on it, with no fallback to HTTP.

Codex runs with a throwaway ``CODEX_HOME`` and every proxy variable set to a closed loopback
port (``NO_PROXY`` for the server alone): whatever it would fetch from elsewhere fails at once,
on this machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.node_clients import installed_or_skip, node_or_skip

KEY = "sk-codex-cli"
DEAD_PROXY = "http://127.0.0.1:9"  # discard: nothing listens there


@pytest.fixture
def served() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``mockserver serve`` on a free port, its access log on (the socket shows there)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mockserver", "serve", "--port", "0", "--log-level", "info"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().split()[3]  # "mockserver listening on http://…/v1"
    deadline = time.monotonic() + 10
    while True:
        try:
            with httpx.Client() as probe:
                probe.get(url.removesuffix("/v1") + "/__mockserver/health")
            break
        except httpx.ConnectError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    yield url, process
    process.terminate()
    process.communicate(timeout=10)


def codex_home(tmp_path: Path, base_url: str) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'openai_base_url = "{base_url}"\nmodel = "gpt-5.1-codex"\n', encoding="utf-8"
    )
    return home


def test_codex_exec_runs_a_shell_call_over_the_socket(
    served: tuple[str, subprocess.Popen[str]], tmp_path: Path
) -> None:
    node_or_skip()
    installed_or_skip("@openai/codex")
    url, process = served
    control = httpx.Client(
        base_url=url.removesuffix("/v1") + "/__mockserver",
        headers={"Authorization": f"Bearer {KEY}"},
    )
    with control:
        for reply in (
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo mock-says-hi"}}]},
            {"text": "All done."},
        ):
            assert control.post("/next", json=reply).status_code == 200
        ran = run_codex(tmp_path, url)
        calls = control.get("/calls").json()["data"]
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().endswith("All done."), ran.stdout
    assert "mock-says-hi" in ran.stderr  # the shell call ran, and its output went back
    assert "Falling back" not in ran.stderr, ran.stderr
    # the socket's warm-up (generate: false) used up no scripted reply; the rest did
    assert [c["request"].get("generate") for c in calls] == [False, None, None]
    assert [c["rule"] for c in calls] == [None, "(one-off)", "(one-off)"]
    process.terminate()
    log, _ = process.communicate(timeout=10)
    assert '"WebSocket /v1/responses" [accepted]' in log
    assert "POST /v1/responses" not in log  # never over HTTP


def run_codex(tmp_path: Path, url: str) -> subprocess.CompletedProcess[str]:
    package = installed_or_skip("@openai/codex")
    work = tmp_path / "work"
    work.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CODEX_HOME": str(codex_home(tmp_path, url)),
        "CODEX_API_KEY": KEY,
        **dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"), DEAD_PROXY),
        **{name.lower(): DEAD_PROXY for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return subprocess.run(
        [str(package / "bin" / "codex.js"), "exec", "--skip-git-repo-check", "Run the echo"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
