"""``mockserver`` run as a subprocess whose address space is capped, for tests of hostile
input: if a guard were broken, the subprocess fails to allocate (and the test fails) instead
of the machine running out of memory."""

from __future__ import annotations

import queue
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import TracebackType

__all__ = ["MEMORY_CAP", "LimitedServer", "run_limited"]

#: The address space a capped subprocess may use: ten times what a server needs.
MEMORY_CAP = 1 << 30


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_limited(args: Sequence[str], *, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``mockserver <args>`` to its end, its memory capped."""
    return subprocess.run(
        [sys.executable, "-m", "mockserver", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_cap,
    )


class LimitedServer:
    """``mockserver serve <args>`` with its memory capped; ``url`` once it listens, and the
    lines it writes (stdout and stderr together) as they come."""

    def __init__(self, args: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mockserver", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_cap,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        first = self.wait_for("mockserver listening on ")
        self.url = first.split()[3]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, *, timeout: float = 30) -> str:
        """The next line holding ``text`` (the lines before it are kept in ``seen``)."""
        ends = time.monotonic() + timeout
        while (left := ends - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} in {timeout} s; seen:\n{''.join(self.seen)}")

    def __enter__(self) -> LimitedServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # stuck: what a test of a hang may find
            self.process.kill()
            self.process.wait(timeout=10)
        self._reader.join(10)  # to the end of its output
        assert self.process.stdout is not None
        self.process.stdout.close()
