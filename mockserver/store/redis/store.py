"""The Redis backend of the :class:`~mockserver.store.base.Store`: every namespace in one Redis,
shared by any number of ``serve`` processes (workers, hosts), which then act as one server.

Each change to a namespace is one compare-and-set script call (``change.py``), so a
``replies:`` sequence, a ``times:`` count, a queued reply or a budget is spent exactly once,
whichever process serves the request; the scripts keep the memory backend's bounds.
``pipelined`` (the default) is the one switch of the speed devices: a request's turn awaited on
the loop's pipelined connection (``pipe.py``: ``Store.turns``), and the journal's times taken
along with the next change (``feed.Completer``). Off, each change and each completion waits
for its own round trip, and the same changes are written (the tests compare).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import orjson

from mockserver.store.base import Store
from mockserver.store.model import Exchange, JournalEntry, Namespace
from mockserver.store.redis.change import Changes, Reads, shelf_of
from mockserver.store.redis.client import (
    TIMEOUT,
    RedisClient,
    StateUnavailableError,
    escape,
    unescape,
)
from mockserver.store.redis.codec import ScenarioCodec
from mockserver.store.redis.feed import Completer, SharedFeed
from mockserver.store.redis.pipe import PipelinedTurns, pipe_target
from mockserver.store.stored import KINDS

__all__ = ["DEFAULT_PREFIX", "RedisStore"]

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
        self.reads = Reads(client, self.codec, journal_limit=journal_limit)
        self.feed: SharedFeed = SharedFeed(client, size=max(journal_limit, 1000))
        self.completer = Completer(client) if pipelined else None
        limits = (namespace_limit, journal_limit, journal_bytes, store_limit, store_bytes)
        riding = self.completer.take if self.completer is not None else list
        self.changes = Changes(client, self.reads, self.feed, limits=limits, riding=riding)
        target = pipe_target(url) if pipelined else None
        self.turns = PipelinedTurns(self.changes, target) if target is not None else None

    def check(self) -> None:
        """Fail at start-up unless this Redis can serve (``RedisClient.check``)."""
        self.client.check()

    def close(self) -> None:
        """Let go of the connections and the feed's reader, once the completions made so far
        are written."""
        self.flush()
        self.feed.stop()
        self.client.close()

    def flush(self) -> None:
        """Until every completion made so far is written (or Redis was lost meanwhile)."""
        if self.completer is not None:
            self.completer.flush()

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:
        self.codec.find = find

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        return self.changes.transact(name, work)

    @contextmanager
    def view(self, name: str) -> Iterator[Namespace]:
        yield self.reads.space(name, self.reads.state(name))

    @contextmanager
    def peek(self, name: str) -> Iterator[Namespace | None]:
        state = self.reads.state(name)
        yield None if state is None else self.reads.space(name, state)

    def names(self) -> list[str]:
        members = self.client.call(lambda r: r.zrange(f"{self.prefix}:names", 0, -1))
        return [unescape(m.decode()) for m in members]

    def reset(self, name: str) -> None:
        self.client.run("reset", 0, escape(name))
        self.changes.forget(name)
        self.feed.publish("reset", name)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        return self.reads.entry(name, seq)

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
        they took: announced at once; written by the completer (off the request's path, many
        in one round trip under load), else at once."""
        batch: list[object] = []
        for name, entry in exchange.entries:
            entry.duration_ms = duration_ms
            if timing is not None and entry.stream:
                entry.timing = timing
            entry.cut = cut and entry.stream
            times = orjson.dumps([duration_ms, entry.timing, entry.cut])
            if self.completer is not None:
                self.completer.add(escape(name), entry.seq, times)
            else:
                batch += [escape(name), entry.seq, times]
            self.feed.publish("entry", name, entry.seq)
        if batch:
            with suppress(StateUnavailableError):  # (after the answer: the outage is logged)
                self.client.run("complete", len(batch) // 3, *batch)
