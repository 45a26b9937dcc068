"""The Redis backend of the :class:`~mockserver.store.base.Store`: every namespace in one Redis,
shared by any number of ``serve`` processes (workers, hosts), which then act as one server.

Each change to a namespace is one compare-and-set script call (``change.py``), so a
``replies:`` sequence, a ``times:`` count, a queued reply or a budget is spent exactly once,
whichever process serves the request; the script keeps the memory backend's bounds.
``pipelined`` (the default) is the one switch of the speed devices (``pipe.py``): a request's
turn awaited on the loop's pipelined connection (``Store.turns``), made on the change the one
before sends, and the journal's times taken along with the next turn. Off, each change and
each completion waits for its own round trip, and the same changes are written (the tests
compare). Every process hears every other's changes on the shared feed (:class:`SharedFeed`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import orjson
import redis

from mockserver.store.base import Store
from mockserver.store.feed import Change, Feed
from mockserver.store.model import Exchange, JournalEntry, Namespace
from mockserver.store.redis.change import Changes
from mockserver.store.redis.client import (
    TIMEOUT,
    RedisClient,
    escape,
    redis_client,
    unescape,
)
from mockserver.store.redis.codec import ScenarioCodec
from mockserver.store.redis.pipe import PipelinedTurns, pipe_target
from mockserver.store.redis.views import read_entry, shelf_of
from mockserver.store.stored import KINDS

__all__ = ["DEFAULT_PREFIX", "RedisStore", "SharedFeed"]

T = TypeVar("T")

#: Keys start with this unless ``--state-prefix`` says otherwise.
DEFAULT_PREFIX = "mockserver"


class RedisStore(Store):
    """Every namespace in one Redis, under ``prefix``, with the memory backend's bounds:
    ``namespace_limit`` namespaces, the least recently used leaving first; per namespace
    ``journal_limit`` entries holding at most ``journal_bytes``, and ``store_limit`` objects of
    each kind, a weighed kind's holding at most ``store_bytes`` (bytes as written to Redis)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        journal_limit: int = 1000,
        store_limit: int = 10_000,
        namespace_limit: int = 1000,
        journal_bytes: int = 64 * 1024 * 1024,
        store_bytes: int = 256 * 1024 * 1024,
        timeout: float = TIMEOUT,
        pipelined: bool = True,
    ) -> None:
        self.client = client = RedisClient(url, prefix=prefix, timeout=timeout)
        self.url, self.prefix = client.url, prefix
        self.journal_limit, self.store_limit = journal_limit, store_limit
        self.namespace_limit = namespace_limit
        yaml = f"{prefix}:scenario:"  # an uploaded scenario's YAML, by its digest
        self.codec = ScenarioCodec(
            fetch=lambda digest: client.call(lambda r: r.get(yaml + digest)),
            keep=lambda digest, text: client.call(lambda r: r.set(yaml + digest, text, nx=True)),
        )
        self.feed: SharedFeed = SharedFeed(client, size=max(journal_limit, 1000))
        limits = (namespace_limit, journal_limit, journal_bytes, store_limit, store_bytes)
        self.changes = Changes(client, self.codec, self.feed, limits=limits)
        target = pipe_target(url) if pipelined else None
        self.turns: PipelinedTurns | None = (
            PipelinedTurns(self.changes, target) if target is not None else None
        )

    def check(self) -> None:
        """Fail at start-up unless this Redis can serve (``RedisClient.check``)."""
        self.client.check()

    def close(self) -> None:
        """Let go of the connections and the feed's reader."""
        self.feed.stop()
        self.client.close()

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:
        self.codec.find = find

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        return self.changes.transact(name, work)

    @contextmanager
    def view(self, name: str) -> Iterator[Namespace]:
        yield self.changes.space(name, self.changes.state(name))

    @contextmanager
    def peek(self, name: str) -> Iterator[Namespace | None]:
        state = self.changes.state(name)
        yield None if state is None else self.changes.space(name, state)

    def names(self) -> list[str]:
        members = self.client.call(lambda r: r.zrange(f"{self.prefix}:names", 0, -1))
        return [unescape(m.decode()) for m in members]

    def reset(self, name: str) -> None:
        self.client.run("reset", 0, escape(name))
        self.changes.forget(name)
        self.feed.publish("reset", name)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        return read_entry(self.client, name, seq)

    def put(self, space: Namespace, kind: str, stored: Any) -> None:
        of = KINDS[kind]
        shelf_of(getattr(space, of.shelf)).put(of.key(stored), stored)

    def complete(
        self,
        exchange: Exchange,
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        """Stamp the entries (written with their answers when their change was) with how long
        they took: announced at once; written along with the loop's next turn (off the
        request's path: ``pipe.py``), else at once."""
        exchange.stamp(duration_ms=duration_ms, timing=timing, cut=cut)
        batch: list[object] = []
        for name, entry in exchange.entries:
            batch += [escape(name), entry.seq, orjson.dumps([duration_ms, entry.timing, entry.cut])]
            self.feed.publish("entry", name, entry.seq)
        if batch and (self.turns is None or not self.turns.ride(batch)):
            self.changes.complete(batch)


class SharedFeed(Feed):
    """This process's feed, which also hears every other process's changes: a reader thread,
    started the first time a live view looks, follows the shared Redis stream, skipping this
    process's own changes (published here as they are made)."""

    def __init__(self, client: RedisClient, *, size: int) -> None:
        super().__init__(size=size)
        self._client = client
        self._started_in: int | None = None
        self._stopping = threading.Event()

    def _follow(self) -> None:
        with self._lock:  # (the feed's own: never held while this runs)
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
