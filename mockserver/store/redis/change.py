"""A namespace on Redis as a change or a view sees it, and how it changes: one compare-and-set
protocol.

A namespace is its state, decoded, with its journal and stored objects fetched only when read
(:class:`JournalView`, :class:`RedisShelf`: a turn that reads none pays for none); every value
read is decoded by ``RedisClient.decoded``, once.

A change is made on the namespace's state as this process last saw it, in its version V, and
one script call writes it — state, journal entries, stored-object changes, announcements — if
the namespace is still in V and nobody else holds its lease. If another process wrote it in
between, the call answers with the state and the version as they are now, and the change is
made again on those: a retry costs one round trip (a turn is a function of the namespace and
the request: made again, it is what it would have been). A namespace this process has not seen
is tried as a new one (version ``''``). The ``LEASE_AFTER``-th miss in a row also takes the
namespace's lease for ``LEASE_MS``, so that this process's next try cannot miss (but for a
reset); a process that meets another's lease waits a moment and tries again, and past ``WAIT``
answers the API's 503. The version a change writes is named in advance
(``RedisClient.new_version``), so the next change can be made on it before it is written: the
awaited turns of ``pipe.py`` do, with the same :meth:`Changes.begin` and :meth:`Changes.settle`.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Reversible, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, Literal, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import JournalEntry, Namespace, current_exchange
from mockserver.store.redis.client import (
    RedisClient,
    StateUnavailableError,
    escape,
    unavailable,
    unescape,
)
from mockserver.store.redis.codec import (
    ScenarioCodec,
    decode_entry,
    decode_stored,
    encode_entry,
    encode_stored,
)
from mockserver.store.stored import KINDS

__all__ = ["LEASE_AFTER", "Attempt", "Changes", "JournalView", "RedisShelf", "shelf_of"]

T = TypeVar("T")
V = TypeVar("V")

#: Misses in a row after which a change takes the namespace's lease, and for how long.
LEASE_AFTER = 3
LEASE_MS = 500
#: How long a change waits out other processes' leases before it is the API's 503.
WAIT = 2.5
#: The state and version of a namespace this process has not seen: tried as a new one.
UNSEEN = (b"", b"")


class JournalView:
    """A namespace's journal on Redis: entries appended in a change are written with it;
    reading fetches them all (one round trip), which only the control API and views do."""

    def __init__(self, changes: Changes, name: str) -> None:
        self.changes, self.name = changes, name
        self.added: list[JournalEntry] = []
        #: How many entries Redis holds (from the namespace's journal number).
        self.known = 0
        self._loaded: list[JournalEntry] | None = None

    def _all(self) -> list[JournalEntry]:
        if self._loaded is None:
            self._loaded = self.changes.entries(self.name)
        limit = self.changes.limits[1]
        return [*self._loaded, *self.added][-limit:] if limit else []

    def append(self, entry: JournalEntry, /) -> None:
        self.added.append(entry)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self._all())

    def __len__(self) -> int:
        return min(self.known + len(self.added), self.changes.limits[1])

    def __getitem__(self, index: int, /) -> JournalEntry:
        return self._all()[index]


class Outbox:
    """What a change announces, published once it is written (Redis numbers its calls)."""

    __slots__ = ("said",)

    def __init__(self) -> None:
        self.said: list[tuple[Literal["entry", "state", "reset"], int]] = []

    def publish(self, kind: Literal["entry", "state", "reset"], _: str, seq: int = 0) -> None:
        self.said.append((kind, seq))

    def next_call(self) -> int:
        return 0


class RedisShelf(Generic[V]):
    """The stored objects of one kind on Redis: each one read is fetched (and kept for the
    change), and written back with it only if it changed."""

    def __init__(self, client: RedisClient, base: str, kind: str) -> None:
        self.client, self.kind, self.key = client, kind, base + kind  # (base: the name's keys')
        #: id → (object, the bytes it was read as; b"" for one put in this change), or
        #: ``None`` for none (not found, or deleted in this change).
        self._seen: dict[str, tuple[V, bytes] | None] = {}
        self._deleted: set[str] = set()

    def _decoded(self, key: str, blob: bytes) -> tuple[V, bytes]:
        where = f"{self.key} {key}"
        return self.client.decoded(where, lambda: decode_stored(self.kind, blob)), blob

    def get(self, key: str, /) -> V | None:
        if key not in self._seen:
            blob: bytes | None = self.client.call(lambda r: r.hget(self.key, key))
            self._seen[key] = None if blob is None else self._decoded(key, blob)
        seen = self._seen[key]
        return None if seen is None else seen[0]

    def put(self, key: str, stored: V) -> None:
        self._seen[key] = (stored, b"")
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
        self._seen[key] = None
        self._deleted.add(key)

    def values(self) -> Reversible[V]:
        """Every object, oldest first (their order and the objects: one round trip)."""

        def both(client: Any) -> Any:
            with client.pipeline(transaction=True) as pipe:
                return pipe.zrange(self.key + ":order", 0, -1).hgetall(self.key).execute()

        order, blobs = self.client.call(both)
        found: dict[str, V] = {}
        for raw in order:
            key = raw.decode()
            if raw in blobs and key not in self._deleted:
                seen = self._seen.get(key)
                if seen is None:
                    seen = self._seen[key] = self._decoded(key, blobs[raw])
                found[key] = seen[0]
        for key, seen in self._seen.items():
            if seen is not None:
                found.setdefault(key, seen[0])
        return list(found.values())

    def __len__(self) -> int:
        return len(list(self.values()))

    @property
    def touched(self) -> bool:
        """Was any object read, put or deleted (a deletion is seen as ``None``)?"""
        return bool(self._seen)

    def changes(self) -> list[list[object]]:
        """What to write with the change: ``[kind, 'set'/'del', id, bytes, weighed]`` each."""
        if not self._seen:  # (most changes touch no object of most kinds)
            return []
        kind, weighed = self.kind, "1" if KINDS[self.kind].weighed else ""
        changed: list[list[object]] = [[kind, "del", key, b"", weighed] for key in self._deleted]
        for key, seen in self._seen.items():
            if seen is not None and (now := encode_stored(seen[0])) != seen[1]:
                changed.append([kind, "set", key, now, weighed])
        return changed


def shelf_of(shelf: object) -> RedisShelf[Any]:
    assert isinstance(shelf, RedisShelf)  # this backend's namespaces hold RedisShelves
    return shelf


@dataclass(slots=True)
class Attempt(Generic[T]):
    """A change made, before Redis has written it: the script call that writes it, and what
    to settle once Redis answers; once it missed, what to make the change on again."""

    space: Namespace
    #: The namespace's state after the change, and the version it is written as.
    state: bytes
    version: bytes
    args: list[object]
    #: Does the change write stored objects (a change made on it would read them as they were)?
    shelved: bool
    value: T | None
    failure: BaseException | None
    #: How many entries the exchange had journaled before it.
    journaled: int
    #: Misses in a row before it, and since when leases held the namespace (0: none did).
    misses: int
    since: float
    #: Once missed: the namespace's state and version as Redis answered, and the seconds to
    #: wait before it is made again.
    known: tuple[bytes, bytes] = UNSEEN
    pause: float = 0.0

    def result(self) -> T:
        """What ``work`` returned, or raised (once the change is written)."""
        if self.failure is not None:
            raise self.failure
        return self.value  # type: ignore[return-value]  # work returned it: a T


class Changes:
    """The namespaces on Redis, read and changed (see the module's docstring), and the states
    this process last saw. ``limits`` are the bounds the script keeps (``Store``'s docstring):
    namespaces, journal entries and bytes, stored objects and bytes."""

    def __init__(
        self,
        client: RedisClient,
        codec: ScenarioCodec,
        feed: Feed,
        *,
        limits: tuple[int, int, int, int, int],
    ) -> None:
        self.client, self.codec, self.feed, self.limits = client, codec, feed, limits
        #: Per namespace, its state and version as this process last wrote or read them, and
        #: the namespace it wrote (made on again as it is; the least recently used leave).
        self._known: OrderedDict[str, tuple[bytes, bytes, Namespace | None]] = OrderedDict()

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` done on the namespace ``name`` as one change, waiting on Redis's answers."""
        attempt: Attempt[T] | None = None
        while True:
            on = attempt.known if attempt is not None else self.known(name)
            attempt = self.begin(name, work, on, after=attempt)
            if self.settle(attempt, self.client.run("change", *attempt.args)):
                return attempt.result()
            if attempt.pause:
                time.sleep(attempt.pause)

    def complete(self, riding: Sequence[object]) -> None:
        """Write completed entries' times now (escaped name, seq, times each); Redis lost, they
        are not (the outage is logged once, where it began)."""
        with suppress(StateUnavailableError):
            self.client.run("complete", len(riding) // 3, *riding)

    def state(self, name: str) -> bytes | None:
        key = self.client.key(name, "state")
        found: bytes | None = self.client.call(lambda r: r.get(key))
        return found

    def space(self, name: str, state: bytes | None, *, fresh: bool = False) -> Namespace:
        """The namespace ``name`` from its ``state`` as written (``None``: a new one; with
        ``fresh``, one that a change makes: a new incarnation)."""
        space = Namespace(name=name, journal=JournalView(self, name))
        if state:
            key = self.client.key(name, "state")
            self.client.decoded(key, lambda: self.codec.decode_state(state, space))
        elif fresh:  # told apart from the namespaces of this name before it (and after)
            space.incarnation = secrets.randbits(62) + 1
        return self.seen_anew(space)

    def seen_anew(self, space: Namespace) -> Namespace:
        """``space`` with its journal and stored objects as a new change sees them (fetched
        when read, nothing added yet)."""
        space.journal = journal = JournalView(self, space.name)
        journal.known = min(space.journal_seq, self.limits[1])
        base = None
        for kind, of in KINDS.items():
            shelf = getattr(space, of.shelf)
            if isinstance(shelf, RedisShelf) and not shelf.touched:
                continue  # as a new one would be (most changes touch no stored object)
            base = base or self.client.key(space.name, "")
            setattr(space, of.shelf, RedisShelf(self.client, base, kind))
        return space

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        fields = (str(seq), f"t:{seq}", f"c:{seq}")  # the entry, its times, its call number
        key = self.client.key(name, "journal")
        found = self.client.call(lambda r: r.hmget(key, fields))
        if found[0] is None:
            return None
        return self.client.decoded(f"{key} {seq}", partial(decode_entry, *found))

    def entries(self, name: str) -> list[JournalEntry]:
        """The namespace's journal, oldest first: each entry beside its times and call number
        in the one hash (``scripts.lua``)."""
        key = self.client.key(name, "journal")
        fields: dict[bytes, bytes] = self.client.call(lambda r: r.hgetall(key))
        entries = [
            self.client.decoded(
                f"{key} {seq.decode()}",
                partial(decode_entry, blob, fields.get(b"t:" + seq), fields.get(b"c:" + seq)),
            )
            for seq, blob in fields.items()
            if seq.isdigit()
        ]
        return sorted(entries, key=lambda e: e.seq)

    def known(self, name: str) -> tuple[bytes, bytes]:
        """The namespace's state and version as this process last saw them."""
        found = self._known.get(name)
        return UNSEEN if found is None else found[:2]

    def forget(self, name: str) -> None:
        self._known.pop(name, None)

    def begin(
        self,
        name: str,
        work: Callable[[Namespace], T],
        on: tuple[bytes, bytes],
        *,
        after: Attempt[Any] | None = None,
        anew: bool = False,
        riding: Sequence[object] = (),
    ) -> Attempt[T]:
        """``work`` done on the namespace as it was in ``on`` (its state and version;
        ``anew``: decoded from the state, not the namespace this process last wrote; ``after``
        the try that missed before it), and the script call that writes it if that is still
        the namespace's version (with it, the journal's times ``riding`` along: escaped name,
        seq, times each)."""
        state, version = on
        space = self._space(name, on, anew=anew)
        outbox = space.feed = Outbox()  # its announcements: sent with the change
        exchange = current_exchange.get()
        journaled = len(exchange.entries) if exchange is not None else 0
        value, failure = _done(work, space)
        now = self.codec.encode_state(space)
        mine = self.client.new_version()
        misses, since = (after.misses + 1, after.since) if after is not None else (0, 0.0)
        entries = [[entry.seq, encode_entry(entry)] for entry in _view(space).added]
        changes = [c for of in KINDS.values() for c in shelf_of(getattr(space, of.shelf)).changes()]
        said = outbox.said
        lease = self.client.origin if misses >= LEASE_AFTER else ""  # (the lease's token)
        args = [len(riding) // 3, *riding, escape(name), version, mine, lease, *self.limits]
        args += [LEASE_MS, b"" if now == state else now, *_counted(entries)]
        args += [*_counted(changes), *_counted(said)]
        shelved = bool(changes)
        return Attempt(space, now, mine, args, shelved, value, failure, journaled, misses, since)

    def _space(self, name: str, on: tuple[bytes, bytes], *, anew: bool) -> Namespace:
        """The namespace in ``on``: as this process wrote it, if it did (decoding the state
        again would make the same values), taken so that no two changes share it, its journal
        and objects seen anew; else decoded."""
        found = None if anew else self._known.get(name)
        if found is not None and found[1] == on[1] and found[2] is not None:
            self._known[name] = (*found[:2], None)
            return self.seen_anew(found[2])
        return self.space(name, on[0] or None, fresh=not on[0])

    def settle(self, attempt: Attempt[Any], got: list[Any]) -> bool:
        """Is the attempt written (the script's answer is ``got``)? If not, it holds what to
        make the change on again (the API's 503 once leases kept it ``WAIT`` seconds)."""
        space = attempt.space
        if got[0] != 1:
            exchange = current_exchange.get()
            if exchange is not None:  # made again: what this attempt journaled is not
                del exchange.entries[attempt.journaled :]
            attempt.known = (got[1], got[2])
            if got[3]:  # another process holds the lease: a moment's wait first
                attempt.since = attempt.since or time.monotonic()
                if time.monotonic() > attempt.since + WAIT:
                    why = f"namespace {space.name!r} stayed held elsewhere"
                    raise unavailable(self.client.url, why)
                attempt.pause = min(0.0005 * 2 ** (attempt.misses + 1), 0.02)
            return False
        _, numbers, evicted = got
        for entry, number in zip(_view(space).added, numbers, strict=True):
            entry.number = int(number)
        known = self._known
        known.pop(space.name, None)
        known[space.name] = (attempt.state, attempt.version, space)
        while len(known) > max(self.limits[0], 1):
            known.popitem(last=False)
        for gone in (unescape(gone.decode()) for gone in evicted):
            self.forget(gone)
            self.feed.publish("reset", gone)
        assert isinstance(space.feed, Outbox)  # (``begin`` gave it one)
        for kind, seq in space.feed.said:
            self.feed.publish(kind, space.name, seq)
        return True


def _done(
    work: Callable[[Namespace], T], space: Namespace
) -> tuple[T | None, BaseException | None]:
    """What ``work`` returned or raised (what it changed stands, as in memory: raised once
    the change is written)."""
    try:
        return work(space), None
    except BaseException as exc:
        return None, exc


def _view(space: Namespace) -> JournalView:
    journal = space.journal
    assert isinstance(journal, JournalView)  # this backend's namespaces hold JournalViews
    return journal


def _counted(items: Sequence[Sequence[object]]) -> list[object]:
    """``items`` as the script reads them: their count, then each one's values."""
    return [len(items), *(value for item in items for value in item)]
