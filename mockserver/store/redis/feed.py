"""What every process hears, and when the journal's times are written: the feed that follows
the shared Redis stream (:class:`SharedFeed`), and the completer that takes completed entries'
times along with the next change (:class:`Completer`, a device of ``pipelined=True``: without
it, each completion is written at once)."""

from __future__ import annotations

import os
import threading
import time
from contextlib import suppress
from typing import Any

import redis

from mockserver.store.feed import Change, Feed
from mockserver.store.redis.client import (
    TIMEOUT,
    RedisClient,
    StateUnavailableError,
    redis_client,
    unescape,
)

__all__ = ["RIDE_ALONG", "Completer", "SharedFeed"]

#: How long a completed journal entry waits for a request to take its times along.
RIDE_ALONG = 0.02


class SharedFeed(Feed):
    """This process's feed, which also hears every other process's changes: a reader thread,
    started the first time a live view looks, follows the shared Redis stream, skipping this
    process's own changes (published here as they are made)."""

    def __init__(self, client: RedisClient, *, size: int) -> None:
        super().__init__(size=size)
        self._client = client
        self._started_in: int | None = None
        self._stopping = threading.Event()
        self._start_lock = threading.Lock()

    def _follow(self) -> None:
        with self._start_lock:
            if self._started_in == os.getpid():
                return
            self._started_in = os.getpid()
        client = redis_client(self._client.target, timeout=TIMEOUT + 2)
        stream, last = f"{self._client.prefix}:feed", "0-0"
        with suppress(redis.RedisError):  # if not, the reader below retries until it answers
            last = self._deliver(client.xrange(stream, "-", "+"), last)
        thread = threading.Thread(
            target=self._read, args=(client, stream, last), name="mockserver-feed", daemon=True
        )
        thread.start()

    def _deliver(self, entries: list[Any], last: str) -> str:
        own = self._client.origin.encode()
        for entry_id, fields in entries:
            last = entry_id.decode()
            if fields.get(b"o") == own:
                continue
            said = fields.get(b"a", b"").decode().split(":")  # kind:name:seq, one after another
            for kind, name, seq in zip(said[::3], said[1::3], said[2::3], strict=False):
                if kind in ("entry", "state", "reset") and seq.isdigit():  # (data, checked)
                    super().publish(kind, unescape(name), int(seq))
        return last

    def _read(self, client: Any, stream: str, last: str) -> None:
        while not self._stopping.is_set():
            try:
                found = client.xread({stream: last}, block=1000)
            except redis.RedisError:
                self._stopping.wait(0.5)
                continue
            for _, entries in found or ():
                last = self._deliver(entries, last)

    def stop(self) -> None:
        self._stopping.set()

    def since(self, version: int) -> list[Change] | None:
        self._follow()
        return super().since(version)

    def recent(self) -> tuple[int, list[Change]]:
        self._follow()
        return super().recent()

    async def wait(self, version: int, *, timeout: float) -> bool:
        self._follow()
        return await super().wait(version, timeout=timeout)


class Completer:
    """Writes the journal's times: with the next change's call to Redis (they ride along),
    else, if none comes soon, all that waited in one call from a thread of its own (started
    in the process that first needs it: a thread does not survive a fork)."""

    def __init__(self, client: RedisClient) -> None:
        self._client = client
        self._waiting: list[object] = []
        self._ready = threading.Condition()
        self._started_in: int | None = None
        self._busy = self._flushing = False
        #: When the oldest of those waiting was added; how many were added so far (the thread
        #: tells by it whether any came while it waited).
        self._since, self._added = 0.0, 0
        #: The thread waits for nothing in particular (else it wakes by itself, soon): only
        #: then does an entry wake it.
        self._idle = False

    def add(self, name: str, seq: int, times: bytes) -> None:
        with self._ready:
            if self._started_in != os.getpid():
                self._started_in = os.getpid()
                self._waiting, self._busy = [], False
                threading.Thread(target=self._run, name="mockserver-journal", daemon=True).start()
            if not self._waiting:
                self._since = time.monotonic()
            self._waiting += [name, seq, times]
            self._added += 1
            if self._idle:
                self._idle = False
                self._ready.notify_all()

    def take(self) -> list[object]:
        """What waits to be written (the caller writes it)."""
        with self._ready:
            batch, self._waiting = self._waiting, []
            return batch

    def _run(self) -> None:
        # While entries keep coming, the thread wakes by itself every RIDE_ALONG (most often
        # to find that requests took them along) and is never woken by an entry: a wake per
        # entry would cost each request a switch of threads and of the GIL. It sleeps until
        # woken only after a whole RIDE_ALONG with no entry.
        seen = -1
        while True:
            with self._ready:
                while True:  # until the oldest has waited long enough for a request to come
                    if not self._waiting:
                        if self._added == seen and not self._flushing:
                            self._idle = True
                            self._ready.wait()
                        else:
                            seen = self._added
                            self._ready.wait(RIDE_ALONG)
                        continue
                    left = self._since + RIDE_ALONG - time.monotonic()
                    if self._flushing or left <= 0:
                        break
                    self._ready.wait(left)
                batch, self._waiting = self._waiting, []
                if not batch:
                    continue
                self._busy = True
            with suppress(StateUnavailableError):  # the outage is logged once, where it began
                self._client.run("complete", len(batch) // 3, *batch)
            with self._ready:
                self._busy = False
                self._ready.notify_all()

    def flush(self) -> None:
        with self._ready:
            self._flushing = True
            self._ready.notify_all()
            self._ready.wait_for(lambda: not self._waiting and not self._busy, timeout=10)
            self._flushing = False
