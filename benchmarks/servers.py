"""The servers under test, as real subprocesses: spawned, timed to their first 200, measured
(RSS from ``/proc``) and stopped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["HOST", "OTHERS", "Server", "aimock_fixtures", "free_port", "raw_request", "spawn"]

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 30.0
#: The servers a run may measure beside the two, each from a ``source`` given on the command
#: line: ``aimock`` (the fastest peer, a Node.js mock: its CLI, ``dist/cli.js`` or the
#: ``aimock`` executable) and ``then`` (mockserver from another checkout, say the commit an
#: issue's numbers were taken at: that checkout's root).
OTHERS = ("aimock", "then")
#: What aimock answers the rows' chat and Responses requests with: the baseline's text (17
#: deltas of aimock's 20 characters: a Responses stream of 25 events against mockserver's 24).
AIMOCK_TEXT = (
    "It helps to keep the baseball temporary and the pound simple. One field trials officer I "
    "spoke with put it well: start small and hit often. Teams in Georgia often deploy "
    "customized ROI to get there faster. You could also facilitate integrated solutions, which "
    "tends to pay off within 21 days. Here is a short overview of hello."
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def raw_request(
    method: str,
    path: str,
    body: bytes,
    *,
    port: int,
    key: str = "sk-bench",
    headers: tuple[tuple[str, str], ...] = (),
) -> bytes:
    """One HTTP/1.1 keep-alive request, as bytes (``headers``: more than the usual ones)."""
    more = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
        f"Content-Type: application/json\r\nAuthorization: Bearer {key}\r\n{more}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def _status_of(port: int, request: bytes, timeout: float) -> int | None:
    """The status of one request on a fresh connection, or ``None`` if nothing listens yet."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(request)
            head = b""
            while b"\r\n" not in head:
                data = sock.recv(4096)
                if not data:
                    return None
                head += data
            return int(head.split(b" ", 2)[1])
    except OSError:
        return None


@dataclass
class Server:
    """A running server process: its port, its command, its start-up time and its log."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    cold_start: float = 0.0
    #: Files it was started with, removed when it stops (aimock's fixtures).
    files: list[Path] = field(default_factory=list)
    extra: dict[str, float] = field(default_factory=dict)

    def rss_mib(self) -> float:
        """Resident set size of the server process (``VmRSS``), in MiB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for path in (self.log, *self.files):
            path.unlink(missing_ok=True)

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""


def aimock_fixtures() -> Path:
    """A new aimock fixture file answering the rows' requests (W1's "Hello" and W1v's "Tell me
    about order N…") with :data:`AIMOCK_TEXT`: its path."""
    answer = {"content": AIMOCK_TEXT}
    fixtures = [
        {"match": {"userMessage": said}, "response": answer}
        for said in ("Hello", "Tell me about order")
    ]
    handle, name = tempfile.mkstemp(prefix="bench-aimock-", suffix=".json")
    with os.fdopen(handle, "w") as file:
        json.dump({"fixtures": fixtures}, file)
    return Path(name)


def _command(
    name: str,
    port: int,
    args: Sequence[str] = (),
    source: Path | None = None,
    fixtures: Path | None = None,
) -> list[str]:
    if name == "baseline":
        return [sys.executable, "-m", "benchmarks.baseline", "--port", str(port)]
    if name == "aimock":
        assert source is not None, "aimock runs from its CLI"
        assert fixtures is not None, "aimock answers from its fixtures"
        cli = ["node", str(source)] if source.suffix == ".js" else [str(source)]
        return [*cli, "-p", str(port), "-f", str(fixtures), "--log-level", "silent"]
    if name == "then":  # the other checkout's code, run as a module (its PYTHONPATH first)
        head = [sys.executable, "-m", "mockserver"]
        return [*head, "serve", "--port", str(port), "--log-level", "warning", *args]
    # As users run it: the console script installed next to this interpreter.
    script = shutil.which("mockserver", path=str(Path(sys.executable).parent))
    head = [script] if script else [sys.executable, "-m", "mockserver"]
    return [*head, "serve", "--port", str(port), "--log-level", "warning", *args]


def compile_sources() -> None:
    """Write the bytecode of mockserver and the baseline, as an installed package has it.

    The servers' own imports are then measured, not a compilation that only a first run (or an
    environment with ``PYTHONDONTWRITEBYTECODE`` set, where it happens on every spawn) pays.
    """
    import compileall

    for package in ("mockserver", "benchmarks"):
        compileall.compile_dir(ROOT / package, quiet=2)


def _environment(first: Path | None = None) -> dict[str, str]:
    """The servers' environment: no mockserver or OpenAI variables, this checkout's code (or
    ``first``'s, before it) importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOCKSERVER_", "OPENAI_"))}
    paths = [str(first) if first else None, str(ROOT), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
    return env


def spawn(
    name: str,
    first_request: bytes | None = None,
    *,
    port: int | None = None,
    args: Sequence[str] = (),
    source: Path | None = None,
) -> Server:
    """Start ``name`` ("baseline", "mockserver" with ``serve``'s ``args``, or one of
    :data:`OTHERS` from its ``source``) and wait for a 200 to ``first_request``;
    ``cold_start`` is the time from spawning to that 200."""
    port = port or free_port()
    handle, log_name = tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".log")
    log = Path(log_name)
    fixtures = aimock_fixtures() if name == "aimock" else None
    started = time.perf_counter()
    process = subprocess.Popen(
        _command(name, port, args, source, fixtures),
        stdin=subprocess.DEVNULL,
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=_environment(source if name == "then" else None),
        cwd=source if name == "then" else ROOT,
    )
    os.close(handle)
    server = Server(name, port, process, log, files=[fixtures] if fixtures else [])
    request = first_request or raw_request("GET", "/", b"", port=port)
    deadline = started + START_TIMEOUT
    while True:
        status = _status_of(port, request, timeout=START_TIMEOUT)
        if status == 200:
            server.cold_start = time.perf_counter() - started
            return server
        if status is not None or process.poll() is not None or time.perf_counter() > deadline:
            tail = server.tail()
            server.stop()
            raise RuntimeError(f"{name} did not answer 200 (got {status}):\n{tail}")
        time.sleep(0.002)
