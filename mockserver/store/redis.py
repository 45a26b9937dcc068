"""The Redis backend of the :class:`~mockserver.store.base.Store`: every namespace in one Redis,
shared by any number of ``serve`` processes (workers, hosts), which then act as one server.

A change to a namespace is one atomic step for every process: usually one round trip, written
on the state this process last saw if that state is still current (``redis_change.py`` says
how, and when the namespace is taken under its lock instead).

Either way a ``replies:`` sequence, a ``times:`` count, a queued reply or a budget is spent
exactly once, whichever process serves the request. Stored objects and the journal are not
loaded with the state: a transaction fetches the objects it reads (one round trip each) and
writes back only those it changed. The bounds of the memory backend hold in Redis, kept by the
scripts: namespaces (least recently used leaving), journal entries and their bytes, stored
objects and their bytes.

A request's turn is awaited (:meth:`RedisStore.transact_soon`): made in the protocol's callback
as in memory, its one script call sent on the event loop's pipe to Redis (``redis_pipe.py``),
and the answer written when Redis has written the change; the loop serves other requests
meanwhile, and a namespace's next turn may be made on the change before it is written (so is
a turn made again after another process moved the namespace). Everything else — the locked
way, the control API's changes, reads, the journal's times — is a blocking call on this
thread's own connection of the synchronous client: rare, or off the request's path.

Redis unreachable, or too slow (a socket timeout), is the API's 503 for the request
(``server_is_overloaded``, naming the state backend; how each call is made and its failure
mapped: ``redis_link.py``); nothing is left half written (each write is one script), and the
next request reconnects.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

import orjson

from mockserver.store.base import Store
from mockserver.store.model import (
    KINDS,
    Exchange,
    JournalEntry,
    Namespace,
)
from mockserver.store.redis_change import LOCK_WAIT, Held, shelf_of, transact, transact_soon
from mockserver.store.redis_codec import (
    ScenarioCodec,
    decode_entry,
    escape,
    unescape,
)
from mockserver.store.redis_link import TIMEOUT, RedisLink
from mockserver.store.redis_parts import (
    FEED_SIZE,
    PACKS,
    Completer,
    JournalView,
    RedisShelf,
    SharedFeed,
    StateUnavailableError,
    timed,
    unavailable,
)

__all__ = ["DEFAULT_PREFIX", "RedisStore", "StateUnavailableError"]

T = TypeVar("T")
Kind = Literal["entry", "state", "reset"]

#: Keys start with this unless ``--state-prefix`` says otherwise.
DEFAULT_PREFIX = "mockserver"


class RedisStore(RedisLink, Store):
    """Every namespace in one Redis, under ``prefix``; the bounds of the memory backend, kept
    in Redis (``namespace_limit`` namespaces, least recently used leaving first; per namespace
    ``journal_limit`` entries holding at most ``journal_bytes``, and ``store_limit`` objects of
    each kind, stored completions and responses holding at most ``store_bytes`` each; bytes as
    written to Redis)."""

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
    ) -> None:
        super().__init__(url, prefix=prefix, timeout=timeout)
        self.journal_limit = journal_limit
        self.store_limit = store_limit
        self.namespace_limit = namespace_limit
        self.journal_bytes = journal_bytes
        self.store_bytes = store_bytes
        self.codec = ScenarioCodec(fetch=self._fetch_scenario, keep=self._keep_scenario)
        self._held = threading.local()
        #: Per namespace, the state this process last wrote or read and its version: what a
        #: one-round-trip change is made on (the least recently used leave past the limit).
        self._known: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()
        #: Per namespace, the namespace a one-round-trip change last wrote, and its version.
        self.spaces: dict[str, tuple[bytes, Namespace]] = {}
        #: Locks that may be ours though we never heard so (a call that timed out may run
        #: once Redis answers again): let go the next time Redis answers, so the namespace
        #: does not wait out the lock's expiry.
        self.orphans: list[tuple[str, str]] = []
        self.feed: SharedFeed = SharedFeed(self, size=max(journal_limit, 1000))
        self.completer = Completer(self)

    # -- locks that may be ours ----------------------------------------------------------

    def orphaned(self, name: str, token: str) -> None:
        self.orphans.append((escape(name), token))

    def release_orphans(self) -> None:
        orphans, self.orphans = self.orphans, []
        args = [part for orphan in orphans for part in orphan]
        try:
            self.run("release", *args)
        except StateUnavailableError:
            self.orphans[:0] = orphans
            raise

    def close(self) -> None:
        self.flush()
        self.feed.stop()
        self.disconnect()

    def key(self, name: str, suffix: str) -> str:
        return f"{self.prefix}:ns:{escape(name)}:{suffix}"

    def _fetch_scenario(self, digest: str) -> bytes | None:
        found: bytes | None = self.call(lambda: self._redis.get(f"{self.prefix}:scenario:{digest}"))
        return found

    def _keep_scenario(self, digest: str, text: bytes) -> None:
        self.call(lambda: self._redis.set(f"{self.prefix}:scenario:{digest}", text, nx=True))

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:
        self.codec.find = find

    def held(self) -> dict[str, list[Any]]:
        """The namespaces this thread holds: name → [namespace, depth, token, snapshot]
        (token ``None``: held for a one-round-trip change)."""
        table: dict[str, list[Any]] | None = getattr(self._held, "table", None)
        if table is None:
            table = self._held.table = {}
        return table

    def new_space(self, name: str, state: bytes | None, *, incarnation: int = 0) -> Namespace:
        space = Namespace(name=name, journal=JournalView(self, name), incarnation=incarnation)
        if state:
            self.codec.decode_state(state, space)
        return self.seen_anew(space)

    def seen_anew(self, space: Namespace) -> Namespace:
        """``space`` with its journal and stored objects as a new transaction sees them
        (fetched when read, nothing added yet)."""
        name = space.name
        space.journal = journal = JournalView(self, name)
        journal.known = min(space.journal_seq, self.journal_limit)
        space.chat_completions = RedisShelf(self, name, "chat", key=lambda s: s.body["id"])
        space.responses = RedisShelf(self, name, "responses", key=lambda s: s.id)
        space.conversations = RedisShelf(self, name, "conversations", key=lambda s: s.id)
        return space

    def until_free(self, name: str, attempt: Callable[[], T | None]) -> T:
        """``attempt()`` again, backing off, until it is not ``None`` (the namespace was free),
        or the API's 503 once a namespace's lock would have expired."""
        deadline = time.monotonic() + LOCK_WAIT
        wait = 0.0005
        while (got := attempt()) is None:
            if time.monotonic() > deadline:
                raise unavailable(self.url, f"namespace {name!r} stayed held by another process")
            time.sleep(wait)
            wait = min(wait * 2, 0.02)
        return got

    def known(self, name: str) -> tuple[bytes, bytes] | None:
        """The namespace's state (and version) as this process last saw it, if it did."""
        return self._known.get(name)

    def forget_known(self, name: str) -> None:
        self._known.pop(name, None)
        self.spaces.pop(name, None)

    def remember(
        self, name: str, state: bytes, version: bytes, space: Namespace | None = None
    ) -> None:
        """The namespace's state as this process last saw it (what the next change is made
        on), and the namespace it was written from, if it may be made on again as it is."""
        known = self._known
        known.pop(name, None)
        known[name] = (state, version)
        self.spaces.pop(name, None)
        if space is not None:
            self.spaces[name] = (version, space)
        while len(known) > max(self.namespace_limit, 1):
            gone, _ = known.popitem(last=False)
            self.spaces.pop(gone, None)

    # -- primitives -----------------------------------------------------------------------

    def namespace(self, name: str) -> Held:
        return Held(self, name)

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` done on the namespace ``name`` as one atomic change, in one round trip
        when the state this process last saw is still the namespace's (see the module's
        docstring); ``work`` may be done more than once, each time on a fresh namespace, and
        only the last one counts (it must change nothing but the namespace)."""
        return transact(self, name, work)

    async def transact_soon(self, name: str, work: Callable[[Namespace], T]) -> T:
        if not PACKS:  # pragma: no cover (the redis extra installs hiredis)
            return transact(self, name, work)
        return await transact_soon(self, name, work)

    @property
    def turns(self) -> Any:  # type: ignore[override]
        return _Turns(self)

    @contextmanager
    def view(self, name: str) -> Iterator[Namespace]:
        state = self.call(lambda: self._redis.get(self.key(name, "state")))
        yield self.new_space(name, state)

    @contextmanager
    def peek(self, name: str) -> Iterator[Namespace | None]:
        state = self.call(lambda: self._redis.get(self.key(name, "state")))
        yield None if state is None else self.new_space(name, state)

    def names(self) -> list[str]:
        members = self.call(lambda: self._redis.zrange(f"{self.prefix}:names", 0, -1))
        return [unescape(m.decode()) for m in members]

    def reset(self, name: str) -> None:
        """Forget the namespace once no other process holds it (waiting as a turn would)."""
        mine = self.held().get(name)
        token = mine[2] if mine is not None and mine[2] is not None else ""
        reset = ("reset", escape(name), self.origin, FEED_SIZE, token)
        self.until_free(name, lambda: True if self.run(*reset)[0] == 1 else None)
        self.forget_known(name)
        self.feed.publish("reset", name)

    def announce(self, kind: Kind, name: str, seq: int = 0) -> None:
        self.run("announce", escape(name), self.origin, FEED_SIZE, kind, seq)
        self.feed.publish(kind, name, seq)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        fields = (str(seq), f"t:{seq}", f"c:{seq}")  # the entry, its times, its call number
        key = self.key(name, "journal")
        blob, times, number = self.call(lambda: self._redis.hmget(key, fields))
        return None if blob is None else timed(decode_entry(blob), times, number)

    def journal(self, name: str) -> list[JournalEntry]:
        with self.view(name) as space:
            return list(space.journal)

    def complete(
        self,
        exchange: Exchange,
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        self._complete(exchange.entries, duration_ms=duration_ms, timing=timing, cut=cut)

    def _complete(
        self,
        entries: list[tuple[str, JournalEntry]],
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        """Stamp the entries (written with their answers when their turn committed) with how
        long they took: announced here at once, written by the completer (off the request's
        path, many in one round trip under load)."""
        for name, entry in entries:
            entry.duration_ms = duration_ms
            if timing is not None and entry.stream:
                entry.timing = timing
            entry.cut = cut and entry.stream
            times = orjson.dumps([duration_ms, entry.timing, entry.cut])
            self.completer.add(escape(name), entry.seq, times)
            self.feed.publish("entry", name, entry.seq)

    def flush(self) -> None:
        """Until every completion made so far is written (or Redis was lost meanwhile)."""
        self.completer.flush()

    def put(self, space: Namespace, kind: str, stored: Any) -> None:
        of = KINDS[kind]
        shelf_of(getattr(space, of.shelf)).put(of.key(stored), stored)

    # -- reads of what a namespace keeps apart from its state --------------------------------

    def fetch(self, name: str, kind: str, key: str) -> bytes | None:
        found: bytes | None = self.call(lambda: self._redis.hget(self.key(name, kind), key))
        return found

    def fetch_all(self, name: str, kind: str) -> list[tuple[str, bytes]]:
        """Every stored object of a kind, oldest first (two commands, one round trip)."""

        def both() -> list[Any]:
            with self._redis.pipeline(transaction=True) as pipe:
                pipe.zrange(self.key(name, f"{kind}:order"), 0, -1)
                pipe.hgetall(self.key(name, kind))
                replies: list[Any] = pipe.execute()
                return replies

        order, blobs = self.call(both)
        return [(k.decode(), blobs[k]) for k in order if k in blobs]

    def journal_entries(self, name: str) -> list[JournalEntry]:
        """The namespace's journal, oldest first: each entry beside its times and call number
        in the one hash (``redis_scripts.py``)."""
        key = self.key(name, "journal")
        fields: dict[bytes, bytes] = self.call(lambda: self._redis.hgetall(key))
        entries = [
            timed(decode_entry(blob), fields.get(b"t:" + seq), fields.get(b"c:" + seq))
            for seq, blob in fields.items()
            if seq.isdigit()
        ]
        return sorted(entries, key=lambda e: e.seq)


class _Turns:
    def __init__(self, store: RedisStore) -> None:
        self.store = store

    async def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        return await self.store.transact_soon(name, work)

    def loop_starts(self) -> None:
        self.store.loop_starts()

    def loop_ends(self) -> None:
        self.store.loop_ends()
