"""``serve --workers N``: N processes answering on one port.

The parent binds the socket and builds the app once (a broken scenario or an unreachable
Redis fails before anything forks), then forks N workers, each serving the inherited socket
with uvicorn (the kernel hands each connection to one of them). The workers share nothing
but the socket and the store (Redis: the memory backend is refused for N > 1, each worker
would keep namespaces of its own). A worker that dies leaves the others serving, and another
is started in its place (one that dies as it starts, again and again, is not); Ctrl-C or
SIGTERM stops them all.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from contextlib import suppress
from types import FrameType

from starlette.applications import Starlette

from mockserver.errors import SettingsError
from mockserver.ids import monotonic

__all__ = ["Supervisor", "check_workers", "serve_workers"]

log = logging.getLogger("mockserver")


def check_workers(
    workers: int, *, shared: bool, records: bool = False, reports: bool = False
) -> None:
    """N > 1 processes need a shared store, and do not record a cassette or write a report
    (each worker would write its own): say why, and how."""
    if workers < 1:
        raise SettingsError(f"--workers {workers}: at least one worker", setting="workers")
    if workers == 1:
        return
    if not shared:
        raise SettingsError(
            f"--workers {workers} needs shared state: with the memory backend each worker "
            "keeps its own namespaces, so a previous_response_id chain breaks on the next "
            "worker and a [429, 200] sequence serves two 429s. Pass --state "
            "redis://HOST:PORT/DB (or set MOCKSERVER_STATE_URL), or serve one worker.",
            setting="workers",
        )
    if records:
        raise SettingsError(
            f"--workers {workers} with --record: each worker would write the cassette from "
            "what it recorded itself, and one would overwrite another's recordings. Record "
            "with one worker; a recorded file replays on any number (--record-mode none).",
            setting="workers",
        )
    if reports:
        raise SettingsError(
            f"--workers {workers} with --report/--report-junit: the report is written by the "
            "serving process when it stops, with that process's own server errors, and a "
            "fleet of workers has no one process to write it. Serve one worker for a report; "
            "with several, GET /__mockserver/calls on any of them lists every call.",
            setting="workers",
        )


def serve_workers(
    app: Starlette,
    sock: socket.socket,
    *,
    workers: int,
    serve: Callable[[Starlette, socket.socket], None],
    on_ready: Callable[[], None] | None = None,
    in_worker: Callable[[int], None] | None = None,
) -> int:
    """Fork ``workers`` processes that each ``serve(app, sock)``, and keep that many serving
    until told to stop. ``in_worker(number)`` runs first in each, numbered from 1 (threads do
    not survive a fork: start them there); a worker started in place of one that died has its
    number."""

    def spawn(number: int) -> int:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                if in_worker is not None:
                    in_worker(number)
                serve(app, sock)
            except KeyboardInterrupt:
                pass
            except BaseException:
                log.exception("mockserver: worker %d failed", number)
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        return pid

    supervisor = Supervisor(spawn)
    for number in range(1, workers + 1):
        supervisor.start(number)
    if on_ready is not None:
        on_ready()
    try:
        return supervisor.wait()
    finally:
        sock.close()


class Supervisor:
    """Keeps the workers serving: one that dies is replaced (the socket stays open here for
    it), unless it died within ``QUICK`` seconds of starting ``GIVE_UP`` times in a row (it
    would only die again: the parent says so, and serves on with the others). A signal to
    stop is passed on to every worker, and then none is replaced."""

    QUICK = 1.0
    GIVE_UP = 3

    def __init__(self, spawn: Callable[[int], int]) -> None:
        self.spawn = spawn
        #: pid → (worker number, when it started).
        self.children: dict[int, tuple[int, float]] = {}
        self.quick_deaths: dict[int, int] = {}
        self.stopping = False
        self.failed = 0

    def start(self, number: int) -> None:
        self.children[self.spawn(number)] = (number, monotonic())

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True
        for pid in self.children:
            with suppress(ProcessLookupError):  # gone already
                os.kill(pid, signal.SIGTERM)

    def wait(self) -> int:
        """Until every worker has exited: 1 if one of them failed, else 0."""
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        while self.children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            found = self.children.pop(pid, None)
            if found is None:
                continue
            number, started = found
            code = os.waitstatus_to_exitcode(status)
            if code in (0, -signal.SIGTERM, -signal.SIGINT) and self.stopping:
                continue
            self.failed = 1
            self._replace(number, code, quick=monotonic() - started < self.QUICK)
        return self.failed

    def _replace(self, number: int, code: int, *, quick: bool) -> None:
        serving = len(self.children)
        if self.stopping:
            log.warning(
                "mockserver: worker %d exited (%d); %d still serving", number, code, serving
            )
            return
        deaths = self.quick_deaths[number] = self.quick_deaths.get(number, 0) + 1 if quick else 0
        if deaths >= self.GIVE_UP:
            log.warning(
                "mockserver: worker %d exited (%d) %d times as it started; not starting it "
                "again, %d still serving",
                number,
                code,
                deaths,
                serving,
            )
            return
        log.warning(
            "mockserver: worker %d exited (%d); %d still serving, starting another",
            number,
            code,
            serving,
        )
        self.start(number)
