"""``mockserver serve`` processes sharing one Redis: what a fleet of workers or hosts is."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Fleet", "Serve"]


class Serve:
    """One ``mockserver serve`` process (started by :meth:`start`; its output kept)."""

    def __init__(self, args: Sequence[str]) -> None:
        self.args = [sys.executable, "-m", "mockserver", "serve", "--port", "0", *args]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.output: list[str] = []
        self._drainer: threading.Thread | None = None

    def launch(self) -> None:
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    def wait_ready(self) -> Serve:
        """Until it prints its URL (it listens from then on); its output is read on."""
        assert self.process is not None
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            if line.startswith("mockserver listening on "):
                self.url = line.split()[3].removesuffix("/v1")
                self._drainer = threading.Thread(target=self._drain, daemon=True)
                self._drainer.start()
                return self
        raise RuntimeError("mockserver serve did not start:\n" + "".join(self.output))

    def _drain(self) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def stop(self) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._drainer is not None:
            self._drainer.join(5)
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode


class Fleet:
    """``size`` serve processes on one Redis (each on a port of its own, so a test chooses
    which one answers), started together. ``state`` is the Redis URL, or URLs that process
    ``n`` takes the ``n``-th of, in turn (one Redis reached over TCP and over its unix socket)."""

    def __init__(
        self,
        size: int,
        *,
        state: str | Sequence[str],
        prefix: str,
        scenario: Path | None,
        seed: int = 5,
    ) -> None:
        urls = [state] if isinstance(state, str) else list(state)
        args = ["--clock", "frozen", "--seed", str(seed)]
        args += ["--state-prefix", prefix, "--log-level", "warning"]
        if scenario is not None:
            args += ["--scenario", str(scenario)]
        self.members = [Serve([*args, "--state", urls[n % len(urls)]]) for n in range(size)]

    def start(self) -> Fleet:
        for member in self.members:
            member.launch()
        for member in self.members:
            member.wait_ready()
        return self

    def __getitem__(self, index: int) -> Serve:
        return self.members[index % len(self.members)]

    def __len__(self) -> int:
        return len(self.members)

    def stop(self) -> None:
        for member in self.members:
            member.stop()
