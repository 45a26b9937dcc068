"""Change notifications for live views (the inspector's event stream, ``/events``): what
changed in the store, in order, and waiters woken when something does."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import deque
from contextlib import suppress
from typing import Literal, NamedTuple, Protocol

__all__ = ["Announcer", "Change", "Feed"]


class Change(NamedTuple):
    """One thing a live view should learn: a journal entry (new or completed), a namespace whose
    scenario or queue changed, or a namespace that was reset. (A tuple: one is made per
    request, and a frozen dataclass takes several times as long to make.)"""

    version: int
    kind: Literal["entry", "state", "reset"]
    namespace: str
    seq: int = 0


class Announcer(Protocol):
    """Where a namespace announces its changes and numbers its calls: the store's feed, or
    (on Redis) the change's own list, published once the change is written."""

    def publish(
        self, kind: Literal["entry", "state", "reset"], namespace: str, seq: int = 0
    ) -> None: ...
    def next_call(self) -> int: ...


class Feed:
    """Change notifications: a version counter, a short log of changes, and waiters to wake.

    Writers may be on any thread (scenario reloads, test threads); waiters are coroutines, each
    woken on its own event loop. Nothing polls: a waiter sleeps until something changes."""

    def __init__(self, *, size: int) -> None:
        self._lock = threading.Lock()
        self._log: deque[Change] = deque(maxlen=size)
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self.version = 0
        self._calls = itertools.count(1)

    def next_call(self) -> int:
        """The next server-wide call number (journal numbers count per namespace)."""
        return next(self._calls)

    def publish(
        self, kind: Literal["entry", "state", "reset"], namespace: str, seq: int = 0
    ) -> None:
        with self._lock:
            self.version += 1
            self._log.append(Change(self.version, kind, namespace, seq))
            waiters = self._waiters
            if waiters:  # (no new list per change while nobody waits: one per request)
                self._waiters = []
        for loop, event in waiters:
            with suppress(RuntimeError):  # that loop has closed: nobody is waiting any more
                loop.call_soon_threadsafe(event.set)

    def since(self, version: int) -> list[Change] | None:
        """The changes after ``version``; ``None`` if some of them already left the log."""
        with self._lock:
            if version >= self.version:
                return []
            if not self._log or self._log[0].version > version + 1:
                return None
            start = version + 1 - self._log[0].version
            return list(self._log)[start:]

    def recent(self) -> tuple[int, list[Change]]:
        """The current version and every change still in the log, oldest first."""
        with self._lock:
            return self.version, list(self._log)

    async def wait(self, version: int, *, timeout: float) -> bool:
        """Until the version passes ``version`` (``True``) or ``timeout`` seconds pass."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._lock:
            if self.version > version:
                return True
            self._waiters.append(waiter)
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            with self._lock, suppress(ValueError):
                self._waiters.remove(waiter)
            return False
        return True
