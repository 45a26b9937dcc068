"""The memory backend of the :class:`~mockserver.store.base.Store`: every namespace in this
process, behind one lock (the default; nothing to install or start)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mockserver.store.base import Store
from mockserver.store.feed import Feed
from mockserver.store.model import Exchange, Namespace
from mockserver.store.stored import KINDS, Kept

__all__ = ["MemoryStore"]

T = TypeVar("T")


class MemoryStore(Store):
    """The memory backend: namespaces in this process, behind one lock. Every bound is here:
    ``namespace_limit`` namespaces (the least recently used leaves first), each with at most
    ``journal_limit`` journal entries and ``store_limit`` stored objects of each kind, so a
    long-running server (a load test with a new API key per request, say) keeps a flat
    memory."""

    def __init__(
        self,
        *,
        journal_limit: int = 1000,
        store_limit: int = 10_000,
        namespace_limit: int = 1000,
        journal_bytes: int = 64 * 1024 * 1024,
        store_bytes: int = 256 * 1024 * 1024,
    ) -> None:
        self._lock = threading.RLock()
        self.journal_bytes = journal_bytes
        #: Per namespace and kind: the bytes stored chat completions (or responses) may hold.
        self.store_bytes = store_bytes
        #: Least recently used first.
        self._namespaces: dict[str, Namespace] = {}
        self.journal_limit = journal_limit
        self.store_limit = store_limit
        self.namespace_limit = namespace_limit
        self.feed = Feed(size=max(journal_limit, 1000))
        self._incarnations = 0

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` on the namespace called ``name`` (created on first use), under the
        store's lock: done once."""
        with self._lock:
            return work(self._take(name))

    def _take(self, name: str) -> Namespace:
        """The namespace called ``name``, now the most recent (the caller holds the lock)."""
        space = self._namespaces.pop(name, None)
        if space is None:
            self._incarnations += 1
            space = Namespace(
                name=name,
                journal=deque(maxlen=self.journal_limit),
                feed=self.feed,
                incarnation=self._incarnations,
                journal_byte_limit=self.journal_bytes,
            )
            self._evict(keep=self.namespace_limit - 1)
        self._namespaces[name] = space
        return space

    def _evict(self, *, keep: int) -> None:
        while len(self._namespaces) > max(keep, 0):
            oldest = next(iter(self._namespaces))
            del self._namespaces[oldest]
            self.feed.publish("reset", oldest)

    def names(self) -> list[str]:
        with self._lock:
            return list(self._namespaces)

    def reset(self, name: str) -> None:
        with self._lock:
            self._namespaces.pop(name, None)
        self.feed.publish("reset", name)

    @contextmanager
    def peek(self, name: str) -> Iterator[Namespace | None]:
        """Like :meth:`view`, but ``None`` for a namespace that does not exist."""
        with self._lock:
            yield self._namespaces.get(name)

    def complete(
        self,
        exchange: Exchange,
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        """Stamp the entries an exchange journaled with how long it took, count their bytes,
        and announce them."""
        spaces = self._namespaces
        with self._lock:
            exchange.stamp(duration_ms=duration_ms, timing=timing, cut=cut)
            for name, entry in exchange.entries:
                space = spaces.get(name)
                if space is not None:
                    space.weigh(entry)
        for name, entry in exchange.entries:
            self.feed.publish("entry", name, entry.seq)

    def put(self, space: Namespace, kind: str, stored: Any) -> None:
        of = KINDS[kind]
        shelf = getattr(space, of.shelf)
        assert isinstance(shelf, Kept)  # this backend's namespaces hold Kept shelves
        shelf[of.key(stored)] = stored
        while len(shelf) > self.store_limit or (
            of.weighed and shelf.bytes > self.store_bytes and len(shelf) > 1
        ):
            shelf.popitem(last=False)

    @contextmanager
    def view(self, name: str) -> Iterator[Namespace]:
        """For reading only: the namespace called ``name``, else what a new one would show
        (detached: looking neither creates a namespace nor makes one more recent)."""
        with self._lock:
            space = self._namespaces.get(name)
            if space is None:
                space = Namespace(name=name, journal=deque(maxlen=self.journal_limit))
            yield space
