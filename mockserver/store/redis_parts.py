"""The Redis backend's parts beside the store itself: a namespace's journal and stored objects
as a transaction sees them, its announcements, the completer that writes the journal's times,
and the feed that hears every process."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Reversible
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import orjson
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from mockserver.errors import ServiceUnavailableError, SettingsError
from mockserver.settings import shown_state_url
from mockserver.store.feed import Change, Feed
from mockserver.store.model import JournalEntry
from mockserver.store.redis_codec import decode_stored, encode_stored, unescape

if TYPE_CHECKING:
    from mockserver.store.redis import RedisStore

__all__ = [
    "PACKS",
    "Completer",
    "JournalView",
    "Outbox",
    "RedisShelf",
    "SharedFeed",
    "StateUnavailableError",
    "evalsha",
    "pack_call",
    "redis_client",
    "timed",
    "unavailable",
]

_pack: Callable[[tuple[Any, ...]], bytes] | None
try:  # hiredis (the redis extra installs it) packs a command in C; without it, redis-py's path
    from hiredis import pack_command as _pack
except ImportError:  # pragma: no cover
    _pack = None
#: Can a script call go the short way (:func:`evalsha`)?
PACKS = _pack is not None

V = TypeVar("V")
Kind = Literal["entry", "state", "reset"]

#: How long a completed journal entry waits for a request to take its times along.
RIDE_ALONG = 0.02
#: Changes kept in the shared feed (what a live view that connects late can catch up on).
FEED_SIZE = 10_000


class StateUnavailableError(ServiceUnavailableError):
    """Redis is unreachable or too slow: the request is answered as the API's overload."""

    default_code = "server_is_overloaded"


def unavailable(url: str, why: object) -> StateUnavailableError:
    return StateUnavailableError(
        f"The server's state backend (Redis at {url}) is unavailable ({why}). "
        "Please retry your request after a brief delay.",
        headers={"retry-after": "1"},
    )


def timed(entry: JournalEntry, times: bytes | None, number: bytes | None = None) -> JournalEntry:
    """``entry`` as read back: with its times (once sent) and its server-wide call number."""
    if number is not None:
        entry.number = int(number)
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
        #: Entries added so far (the thread tells by it whether any came while it waited).
        self._added = 0
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
        # entry would cost each request a switch of threads and of the GIL (the thread would
        # wake only once the request let go of the GIL, to find its entry already taken). It
        # sleeps until woken only after a whole RIDE_ALONG with no entry.
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
            said = fields.get(b"a", b"").decode().split(":")  # kind:name:seq, one after another
            for kind, name, seq in zip(said[::3], said[1::3], said[2::3], strict=False):
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


def redis_client(url: str, *, timeout: float) -> Any:
    """A client of ``url`` that never sends a call twice (a script sent again after a lost
    answer could take a lock twice)."""
    try:
        return redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            # No retries: a script sent again after a lost answer could take a lock twice.
            retry=Retry(NoBackoff(), 0),
        )
    except ValueError as exc:
        raise SettingsError(f"--state {shown_state_url(url)}: {exc}", setting="state") from None


def pack_call(script: Any, prefix: str, args: tuple[object, ...]) -> bytes:
    """The ``EVALSHA`` of ``script`` (a registered one), packed by hiredis."""
    assert _pack is not None
    return _pack(("EVALSHA", script.sha, 0, prefix, *args))


def evalsha(client: Any, script: Any, prefix: str, args: tuple[object, ...]) -> Any:
    """``EVALSHA`` of ``script`` (a registered one) on ``client``'s own connection, packed by
    hiredis and sent as one write: the client's command path (its packing, retries and checks)
    costs a call more than the round trip's own work. A script Redis does not know (restarted,
    flushed) is loaded and sent again."""
    connection = client.connection
    command = pack_call(script, prefix, args)
    try:
        connection.send_packed_command([command], check_health=False)
        return connection.read_response()
    except redis.exceptions.NoScriptError:
        client.script_load(script.script)
        connection.send_packed_command([command], check_health=False)
        return connection.read_response()
    except (redis.ConnectionError, redis.TimeoutError):
        connection.disconnect()  # an answer may still be on its way: never read it as the next
        raise
