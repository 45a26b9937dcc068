"""The Redis backend of the :class:`~mockserver.store.base.Store`: every namespace in one Redis,
shared by any number of ``serve`` processes (workers, hosts), which then act as one server.

A held namespace (:meth:`RedisStore.namespace`) is a transaction of two round trips: one Lua
call takes the namespace's lock and reads its state (counters, rule hits, scenario, one-off
queue, clock, budgets: one small value), another writes what changed, appends the journal
entries, applies the stored-object changes, announces them on the feed and lets go, all in
one step, or nothing if the lock was lost. So a ``replies:`` sequence, a ``times:`` count, a
queued reply or a budget is spent exactly once, whichever process serves the request. Stored
objects and the journal are not loaded with the state: a transaction fetches the objects it
reads (one round trip each) and writes back only those it changed.

A synchronous client, not the asyncio one: the engine's turn runs inside ``with
store.namespace(...)`` (and the fast lane answers from a protocol callback), so each step
waits for Redis either way, and a blocking call on a pooled connection costs the least.

Redis unreachable, or too slow (a socket timeout), is the API's 503 for the request
(``server_is_overloaded``, naming the state backend); nothing is left half written (each
write is one script), and the next request reconnects.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Reversible
from contextlib import contextmanager, suppress
from typing import Any, Generic, Literal, TypeVar

import orjson
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from mockserver.errors import ServiceUnavailableError, SettingsError
from mockserver.store.base import Store
from mockserver.store.feed import Change, Feed
from mockserver.store.model import (
    Exchange,
    JournalEntry,
    Namespace,
    StoredChatCompletion,
    StoredConversation,
    StoredResponse,
)
from mockserver.store.redis_codec import (
    ScenarioCodec,
    decode_entry,
    decode_stored,
    encode_entry,
    encode_stored,
    escape,
    unescape,
)
from mockserver.store.redis_scripts import ACQUIRE, COMMIT, COMPLETE, RELEASE, RESET

__all__ = ["DEFAULT_PREFIX", "RedisStore", "StateUnavailableError"]

T = TypeVar("T")
V = TypeVar("V")
Kind = Literal["entry", "state", "reset"]
log = logging.getLogger("mockserver")

#: Keys start with this unless ``--state-prefix`` says otherwise.
DEFAULT_PREFIX = "mockserver"
#: How long a process may hold a namespace before another may take it (a process that died
#: holding one lets go this late); and how long a request waits for one.
LOCK_MS = 2000
LOCK_WAIT = 2.5
#: Each Redis call's socket timeout (seconds): a lost Redis is a 503 this soon, not a hang.
TIMEOUT = 1.0
#: How long after losing Redis every step fails at once, before one tries again.
BREAK = 0.5
#: How long a completed journal entry waits for a request to take its times along.
RIDE_ALONG = 0.02
#: Changes kept in the shared feed (what a live view that connects late can catch up on).
FEED_SIZE = 10_000

_LOST = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError)


class StateUnavailableError(ServiceUnavailableError):
    """Redis is unreachable or too slow: the request is answered as the API's overload."""

    default_code = "server_is_overloaded"


def _unavailable(url: str, why: object) -> StateUnavailableError:
    return StateUnavailableError(
        f"The server's state backend (Redis at {url}) is unavailable ({why}). "
        "Please retry your request after a brief delay.",
        headers={"retry-after": "1"},
    )


class RedisStore(Store):
    """Every namespace in one Redis, under ``prefix``; the bounds of the memory backend, kept
    in Redis (``namespace_limit`` namespaces, least recently used leaving first; per namespace
    ``journal_limit`` entries and ``store_limit`` objects of each kind)."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        journal_limit: int = 1000,
        store_limit: int = 10_000,
        namespace_limit: int = 1000,
        timeout: float = TIMEOUT,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.journal_limit = journal_limit
        self.store_limit = store_limit
        self.namespace_limit = namespace_limit
        #: Typed loosely: redis-py's replies are typed for every decoding at once.
        self._redis: Any = _client(url, timeout=timeout)
        self._scripts = {
            name: self._redis.register_script(source)
            for name, source in (
                ("acquire", ACQUIRE),
                ("commit", COMMIT),
                ("complete", COMPLETE),
                ("reset", RESET),
                ("release", RELEASE),
            )
        }
        self._origin = secrets.token_hex(8)
        self.codec = ScenarioCodec(fetch=self._fetch_scenario, keep=self._keep_scenario)
        self._held = threading.local()
        #: Locks that may be ours though we never heard so (a call that timed out may run
        #: once Redis answers again): let go the next time Redis answers, so the namespace
        #: does not wait out the lock's expiry.
        self._orphans: list[tuple[str, str]] = []
        #: Calls made to Redis (each one round trip; what the benchmarks count).
        self.round_trips = 0
        #: Until when (monotonic) a lost Redis is not asked again, and why it was lost.
        self._down_until = 0.0
        self._down_why = ""
        self.feed: SharedFeed = SharedFeed(self, size=max(journal_limit, 1000))
        self.completer = Completer(self)

    # -- plumbing -------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        """Names this process's changes on the feed (its live views learn them at once); a
        worker forked from it is another process."""
        return f"{self._origin}-{os.getpid()}"

    def call(self, step: Callable[[], T]) -> T:
        """Run one Redis step; a lost Redis becomes the API's 503. Once one is lost, every
        step fails at once for ``BREAK`` seconds (then one tries again): each request
        would otherwise wait out a socket timeout, and this process's other connections
        with it."""
        if self._down_until and time.monotonic() < self._down_until:
            raise _unavailable(self.url, self._down_why)
        self.round_trips += 1
        try:
            result = step()
        except _LOST as exc:
            self._lost(type(exc).__name__)
            raise _unavailable(self.url, self._down_why) from None
        except redis.ResponseError as exc:
            if "MOCKSERVER_LOCK_LOST" in str(exc):
                raise _unavailable(self.url, "a namespace was held too long") from None
            raise
        if self._down_until:
            self._down_until = 0.0
            log.warning("mockserver: the state backend (Redis at %s) answers again", self.url)
        return result

    def _lost(self, why: str) -> None:
        if not self._down_until:
            log.warning(
                "mockserver: lost the state backend (Redis at %s: %s); answering 503 until it "
                "is back (journal entries completed meanwhile keep no answer or timing)",
                self.url,
                why,
            )
        self._down_until = time.monotonic() + BREAK
        self._down_why = why

    def run(self, script: str, *args: object) -> Any:
        return self.call(lambda: self._scripts[script](args=[self.prefix, *args]))

    def orphaned(self, name: str, token: str) -> None:
        self._orphans.append((escape(name), token))

    def release_orphans(self) -> None:
        orphans, self._orphans = self._orphans, []
        args = [part for orphan in orphans for part in orphan]
        try:
            self.run("release", *args)
        except StateUnavailableError:
            self._orphans[:0] = orphans
            raise

    def check(self) -> None:
        """Fail at start-up, with where it looked, unless Redis answers."""
        try:
            self._redis.ping()
        except (redis.RedisError, OSError) as exc:
            raise SettingsError(
                f"--state {self.url}: Redis does not answer ({exc}); start it, or serve "
                "without --state (the memory backend: one process)",
                setting="state_url",
            ) from None

    def close(self) -> None:
        self.flush()
        self.feed.stop()
        self._redis.close()

    def key(self, name: str, suffix: str) -> str:
        return f"{self.prefix}:ns:{escape(name)}:{suffix}"

    def _fetch_scenario(self, digest: str) -> bytes | None:
        found: bytes | None = self.call(lambda: self._redis.get(f"{self.prefix}:scenario:{digest}"))
        return found

    def _keep_scenario(self, digest: str, text: bytes) -> None:
        self.call(lambda: self._redis.set(f"{self.prefix}:scenario:{digest}", text, nx=True))

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:
        self.codec.find = find

    # -- primitives -----------------------------------------------------------------------

    def namespace(self, name: str) -> _Held:
        return _Held(self, name)

    def held(self) -> dict[str, list[Any]]:
        """The namespaces this thread holds: name → [namespace, depth, token, snapshot]."""
        table: dict[str, list[Any]] | None = getattr(self._held, "table", None)
        if table is None:
            table = self._held.table = {}
        return table

    def new_space(self, name: str, state: bytes | None, *, incarnation: int = 0) -> Namespace:
        space = Namespace(
            name=name,
            journal=JournalView(self, name),
            chat_completions=RedisShelf(self, name, "chat", key=lambda s: s.body["id"]),
            responses=RedisShelf(self, name, "responses", key=lambda s: s.id),
            conversations=RedisShelf(self, name, "conversations", key=lambda s: s.id),
            incarnation=incarnation,
        )
        if state:
            self.codec.decode_state(state, space)
        assert isinstance(space.journal, JournalView)
        space.journal.known = min(space.journal_seq, self.journal_limit)
        return space

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
        self.run("reset", escape(name), self.origin, FEED_SIZE)
        self.feed.publish("reset", name)

    def announce(self, kind: Kind, name: str, seq: int = 0) -> None:
        self.run("reset", escape(name), self.origin, FEED_SIZE, kind, seq)
        self.feed.publish(kind, name, seq)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        def both() -> list[Any]:
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.hget(self.key(name, "journal"), str(seq))
                pipe.hget(self.key(name, "journal:times"), str(seq))
                replies: list[Any] = pipe.execute()
                return replies

        blob, times = self.call(both)
        return None if blob is None else _timed(decode_entry(blob), times)

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

    def complete_one(
        self, name: str, entry: JournalEntry, *, duration_ms: float, timing: list[float] | None
    ) -> None:
        self._complete([(name, entry)], duration_ms=duration_ms, timing=timing)

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

    def put_chat_completion(self, space: Namespace, stored: StoredChatCompletion) -> None:
        _shelf(space.chat_completions).put(stored.body["id"], stored)

    def put_response(self, space: Namespace, stored: StoredResponse) -> None:
        _shelf(space.responses).put(stored.id, stored)

    def put_conversation(self, space: Namespace, stored: StoredConversation) -> None:
        _shelf(space.conversations).put(stored.id, stored)

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
        def both() -> list[Any]:
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(self.key(name, "journal"))
                pipe.hgetall(self.key(name, "journal:times"))
                replies: list[Any] = pipe.execute()
                return replies

        blobs, times = self.call(both)
        entries = [_timed(decode_entry(blob), times.get(seq)) for seq, blob in blobs.items()]
        return sorted(entries, key=lambda e: e.seq)

    def feed_client(self) -> Any:
        """A client of its own for the feed's reader (it blocks on a read)."""
        return _client(self.url, timeout=TIMEOUT + 2)


def _timed(entry: JournalEntry, times: bytes | None) -> JournalEntry:
    if times is not None:
        entry.duration_ms, entry.timing, *cut = orjson.loads(times)
        entry.cut = bool(cut and cut[0])
    return entry


class Completer:
    """Writes the journal's times: with the next request's first call to Redis (they ride
    along), else, if none comes soon, in a thread of its own (started in the process that
    first needs it: a thread does not survive a fork), all that waited in one call."""

    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._waiting: list[object] = []
        self._busy = False
        self._ready = threading.Condition()
        self._started_in: int | None = None
        self._flushing = False
        #: When the oldest of those waiting was added.
        self._since = 0.0

    def add(self, name: str, seq: int, times: bytes) -> None:
        with self._ready:
            if self._started_in != os.getpid():
                self._started_in = os.getpid()
                self._waiting, self._busy = [], False
                threading.Thread(target=self._run, name="mockserver-journal", daemon=True).start()
            if not self._waiting:
                self._since = time.monotonic()
            self._waiting += [name, seq, times]
            self._ready.notify_all()

    def take(self) -> list[object]:
        """What waits to be written (the caller writes it)."""
        with self._ready:
            batch, self._waiting = self._waiting, []
            return batch

    def _run(self) -> None:
        while True:
            with self._ready:
                while True:  # until the oldest has waited long enough for a request to come
                    if not self._waiting:
                        self._ready.wait()
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
                self._store.run("complete", self._store.origin, FEED_SIZE, *batch)
            with self._ready:
                self._busy = False
                self._ready.notify_all()

    def flush(self) -> None:
        with self._ready:
            self._flushing = True
            self._ready.notify_all()
            self._ready.wait_for(lambda: not self._waiting and not self._busy, timeout=10)
            self._flushing = False


def _client(url: str, *, timeout: float) -> Any:
    try:
        return redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            # No retries: a script sent again after a lost answer could take a lock twice.
            retry=Retry(NoBackoff(), 0),
        )
    except ValueError as exc:
        raise SettingsError(f"--state {url}: {exc}", setting="state") from None


def _shelf(shelf: object) -> RedisShelf[Any]:
    assert isinstance(shelf, RedisShelf)  # this backend's namespaces hold RedisShelves
    return shelf


class _Held:
    """What :meth:`RedisStore.namespace` returns: the namespace locked and read on enter;
    written and let go on exit (also when the block raises: what it changed stands, as in
    memory). A thread may hold a namespace again inside (only the outermost writes)."""

    __slots__ = ("name", "store")

    def __init__(self, store: RedisStore, name: str) -> None:
        self.store = store
        self.name = name

    def __enter__(self) -> Namespace:
        store, name = self.store, self.name
        held = store.held()
        if name in held:
            held[name][1] += 1
            space: Namespace = held[name][0]
            return space
        token = secrets.token_hex(8)
        deadline = time.monotonic() + LOCK_WAIT
        wait = 0.0005
        if store._orphans:
            store.release_orphans()
        riding = store.completer.take()
        while True:
            try:
                got = store.run(
                    "acquire",
                    escape(name),
                    token,
                    LOCK_MS,
                    store.namespace_limit,
                    store.origin,
                    FEED_SIZE,
                    *riding,
                )
                riding = []
            except StateUnavailableError:
                store.orphaned(name, token)
                raise
            if got[0] == 1:
                break
            if time.monotonic() > deadline:
                raise _unavailable(store.url, f"namespace {name!r} stayed held by another process")
            time.sleep(wait)
            wait = min(wait * 2, 0.02)
        _, state, fresh, evicted = got
        space = store.new_space(name, state or None, incarnation=int(fresh))
        space.feed = Outbox()
        held[name] = [space, 1, token, state or b""]
        for gone in evicted:
            store.feed.publish("reset", unescape(gone.decode()))
        return space

    def __exit__(self, *exc: object) -> None:
        store, name = self.store, self.name
        held = store.held()
        record = held[name]
        record[1] -= 1
        if record[1] > 0:
            return
        del held[name]
        space, _, token, snapshot = record
        state = store.codec.encode_state(space)
        journal = space.journal
        assert isinstance(journal, JournalView)
        args: list[object] = [
            escape(name),
            token,
            b"" if state == snapshot else state,
            store.journal_limit,
            store.store_limit,
            store.origin,
            FEED_SIZE,
            len(journal.added),
        ]
        for entry in journal.added:
            args += [entry.seq, encode_entry(entry)]
        changes = [
            change
            for shelf in (space.chat_completions, space.responses, space.conversations)
            for change in _shelf(shelf).changes()
        ]
        args.append(len(changes))
        for change in changes:
            args += change
        outbox = space.feed
        assert isinstance(outbox, Outbox)
        args.append(len(outbox.sent))
        for kind, seq in outbox.sent:
            args += [kind, seq]
        try:
            store.run("commit", *args)
        except StateUnavailableError:
            store.orphaned(name, token)  # if it never ran, the namespace is still ours
            raise
        for kind, seq in outbox.sent:
            store.feed.publish(kind, name, seq)


class Outbox(Feed):
    """A held namespace's announcements, sent with its changes (and so only if they are)."""

    def __init__(self) -> None:
        super().__init__(size=1)
        self.sent: list[tuple[Kind, int]] = []

    def publish(self, kind: Kind, namespace: str, seq: int = 0) -> None:
        self.sent.append((kind, seq))


class JournalView:
    """A namespace's journal on Redis: entries appended in a transaction are written with it;
    reading fetches them all (one round trip), which only the control API and views do."""

    def __init__(self, store: RedisStore, name: str) -> None:
        self.store = store
        self.name = name
        self.added: list[JournalEntry] = []
        #: How many entries Redis holds (from the namespace's journal number).
        self.known = 0
        self._loaded: list[JournalEntry] | None = None

    def _all(self) -> list[JournalEntry]:
        if self._loaded is None:
            self._loaded = self.store.journal_entries(self.name)
        kept = [*self._loaded, *self.added]
        limit = self.store.journal_limit
        return kept[-limit:] if limit else []

    def append(self, entry: JournalEntry, /) -> None:
        self.added.append(entry)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self._all())

    def __len__(self) -> int:
        return min(self.known + len(self.added), self.store.journal_limit)

    def __getitem__(self, index: int, /) -> JournalEntry:
        return self._all()[index]


class RedisShelf(Generic[V]):
    """The stored objects of one kind on Redis: each one read is fetched (and kept for the
    transaction), and written back on commit only if it changed."""

    def __init__(self, store: RedisStore, name: str, kind: str, *, key: Callable[[V], str]):
        self.store = store
        self.name = name
        self.kind = kind
        self.key = key
        #: id → (object, the bytes it was read as; b"" for one put in this transaction).
        self._seen: dict[str, tuple[V, bytes]] = {}
        self._missing: set[str] = set()
        self._deleted: set[str] = set()

    def get(self, key: str, /) -> V | None:
        seen = self._seen.get(key)
        if seen is not None:
            return seen[0]
        if key in self._missing or key in self._deleted:
            return None
        blob = self.store.fetch(self.name, self.kind, key)
        if blob is None:
            self._missing.add(key)
            return None
        stored: V = decode_stored(blob)
        self._seen[key] = (stored, blob)
        return stored

    def put(self, key: str, stored: V) -> None:
        self._seen[key] = (stored, b"")
        self._missing.discard(key)
        self._deleted.discard(key)

    def __getitem__(self, key: str, /) -> V:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object, /) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __delitem__(self, key: str, /) -> None:
        self[key]  # a KeyError if there is none
        self._seen.pop(key, None)
        self._deleted.add(key)

    def values(self) -> Reversible[V]:
        found: dict[str, V] = {}
        for key, blob in self.store.fetch_all(self.name, self.kind):
            if key in self._deleted:
                continue
            seen = self._seen.get(key)
            if seen is None:
                seen = self._seen[key] = (decode_stored(blob), blob)
            found[key] = seen[0]
        for key, (stored, _) in self._seen.items():
            found.setdefault(key, stored)
        return list(found.values())

    def __len__(self) -> int:
        return len(list(self.values()))

    def changes(self) -> Iterator[list[object]]:
        """What to write on commit: ``[kind, 'set'/'del', id, bytes]`` each."""
        for key in self._deleted:
            yield [self.kind, "del", key, b""]
        for key, (stored, blob) in self._seen.items():
            now = encode_stored(stored)
            if now != blob:
                yield [self.kind, "set", key, now]


class SharedFeed(Feed):
    """This process's feed, which also hears every other process's changes: a reader thread
    follows the shared Redis stream (started the first time a live view looks), skipping this
    process's own changes (published here as they are made)."""

    def __init__(self, store: RedisStore, *, size: int) -> None:
        super().__init__(size=size)
        self._store = store
        self._started_in: int | None = None
        self._stopping = threading.Event()
        self._start_lock = threading.Lock()

    def _follow(self) -> None:
        with self._start_lock:
            if self._started_in == os.getpid():
                return
            self._started_in = os.getpid()
        client = self._store.feed_client()
        stream = f"{self._store.prefix}:feed"
        last = "0-0"
        with suppress(redis.RedisError):  # if not, the reader below retries until it answers
            last = self._deliver(client.xrange(stream, "-", "+"), last)
        thread = threading.Thread(
            target=self._read, args=(client, stream, last), name="mockserver-feed", daemon=True
        )
        thread.start()

    def _deliver(self, entries: list[Any], last: str) -> str:
        own = self._store.origin.encode()
        for entry_id, fields in entries:
            last = entry_id.decode()
            if fields.get(b"o") == own:
                continue
            kind = fields[b"k"].decode()
            name = unescape(fields[b"n"].decode())
            super().publish(kind, name, int(fields[b"s"]))
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
