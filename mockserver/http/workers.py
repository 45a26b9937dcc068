"""``serve --workers N``: N processes answering on one port.

The parent binds the socket and builds the app once (a broken scenario or an unreachable
Redis fails before anything forks), then forks N workers, each serving the inherited socket
with uvicorn (the kernel hands each connection to one of them). The workers share nothing
but the socket and the store (Redis: the memory backend is refused for N > 1, each worker
would keep namespaces of its own). A worker that dies leaves the others serving; Ctrl-C or
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

__all__ = ["check_workers", "serve_workers"]

log = logging.getLogger("mockserver")


def check_workers(workers: int, *, shared: bool) -> None:
    """N > 1 processes need a shared store: say why, and how."""
    if workers < 1:
        raise SettingsError(f"--workers {workers}: at least one worker", setting="workers")
    if workers > 1 and not shared:
        raise SettingsError(
            f"--workers {workers} needs shared state: with the memory backend each worker "
            "keeps its own namespaces, so a previous_response_id chain breaks on the next "
            "worker and a [429, 200] sequence serves two 429s. Pass --state "
            "redis://HOST:PORT/DB (or set MOCKSERVER_STATE_URL), or serve one worker.",
            setting="workers",
        )


def serve_workers(
    app: Starlette,
    sock: socket.socket,
    *,
    workers: int,
    serve: Callable[[Starlette, socket.socket], None],
    on_ready: Callable[[], None] | None = None,
    in_worker: Callable[[], None] | None = None,
) -> int:
    """Fork ``workers`` processes that each ``serve(app, sock)``; wait for them all.
    ``in_worker`` runs first in each (threads do not survive a fork: start them there)."""
    children: dict[int, int] = {}
    for number in range(1, workers + 1):
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                if in_worker is not None:
                    in_worker()
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
        children[pid] = number
    sock.close()
    if on_ready is not None:
        on_ready()
    return _wait(children)


def _wait(children: dict[int, int]) -> int:
    """Until every worker has exited; a signal to stop is passed on to each of them."""

    def stop(signum: int, frame: FrameType | None) -> None:
        for pid in children:
            with suppress(ProcessLookupError):  # gone already
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    failed = 0
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        number = children.pop(pid, None)
        if number is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, -signal.SIGTERM, -signal.SIGINT):
            failed = 1
            log.warning(
                "mockserver: worker %d exited (%d); %d still serving", number, code, len(children)
            )
    return failed
