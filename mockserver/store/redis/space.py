"""A namespace on Redis as a change or a view sees it: its state decoded, its journal and its
stored objects fetched only when read (:class:`JournalView`, :class:`RedisShelf`: a turn that
reads none pays for none), and its announcements sent with its change (:class:`Outbox`).
Every value read is decoded here, once: one that is not this layout's is the API's 503 naming
its key (``RedisClient.unreadable``), never a value used."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Reversible
from functools import partial
from typing import Any, Generic, Literal, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import JournalEntry, Namespace
from mockserver.store.redis.client import RedisClient
from mockserver.store.redis.codec import ScenarioCodec, decode_entry, decode_stored, encode_stored
from mockserver.store.stored import KINDS

__all__ = ["JournalView", "Outbox", "Reads", "RedisShelf", "shelf_of"]

V = TypeVar("V")
T = TypeVar("T")
Kind = Literal["entry", "state", "reset"]


class Reads:
    """What a namespace keeps, read from Redis and decoded (see the module's docstring)."""

    def __init__(self, client: RedisClient, codec: ScenarioCodec, *, journal_limit: int) -> None:
        self.client, self.codec, self.journal_limit = client, codec, journal_limit

    def decoded(self, key: str, decode: Callable[..., T], *blobs: Any) -> T:
        """``decode(*blobs)``, or the 503 of an unreadable value at ``key``."""
        try:
            return decode(*blobs)
        except (ValueError, TypeError, KeyError) as exc:  # Unreadable, or worse: never used
            raise self.client.unreadable(key, exc) from None

    def space(self, name: str, state: bytes | None, *, fresh: bool = False) -> Namespace:
        """The namespace ``name`` from its ``state`` as written (``None``: a new one; with
        ``fresh``, one that a change makes: a new incarnation), its journal and stored
        objects fetched when read."""
        space = Namespace(name=name, journal=JournalView(self, name))
        if state:
            self.decoded(self.client.key(name, "state"), self.codec.decode_state, state, space)
        elif fresh:  # told apart from the namespaces of this name before it (and after)
            space.incarnation = secrets.randbits(62) + 1
        return self.seen_anew(space)

    def seen_anew(self, space: Namespace) -> Namespace:
        """``space`` with its journal and stored objects as a new change sees them (fetched
        when read, nothing added yet)."""
        space.journal = journal = JournalView(self, space.name)
        journal.known = min(space.journal_seq, self.journal_limit)
        for kind, of in KINDS.items():
            setattr(space, of.shelf, RedisShelf(self, space.name, kind))
        return space

    def state(self, name: str) -> bytes | None:
        key = self.client.key(name, "state")
        found: bytes | None = self.client.call(lambda r: r.get(key))
        return found

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        fields = (str(seq), f"t:{seq}", f"c:{seq}")  # the entry, its times, its call number
        key = self.client.key(name, "journal")
        found = self.client.call(lambda r: r.hmget(key, fields))
        return None if found[0] is None else self.decoded(f"{key} {seq}", decode_entry, *found)

    def entries(self, name: str) -> list[JournalEntry]:
        """The namespace's journal, oldest first: each entry beside its times and call number
        in the one hash (``scripts.lua``)."""
        key = self.client.key(name, "journal")
        fields: dict[bytes, bytes] = self.client.call(lambda r: r.hgetall(key))
        entries = [
            self.decoded(
                f"{key} {seq.decode()}",
                partial(decode_entry, blob, fields.get(b"t:" + seq), fields.get(b"c:" + seq)),
            )
            for seq, blob in fields.items()
            if seq.isdigit()
        ]
        return sorted(entries, key=lambda e: e.seq)

    def stored(self, name: str, kind: str, key: str) -> tuple[Any, bytes] | None:
        """The stored object ``key`` of ``kind``, and the bytes it was read as."""
        shelf = self.client.key(name, kind)
        blob: bytes | None = self.client.call(lambda r: r.hget(shelf, key))
        if blob is None:
            return None
        return self.decoded(f"{shelf} {key}", decode_stored, kind, blob), blob

    def every_stored(self, name: str, kind: str) -> list[tuple[str, Any, bytes]]:
        """Every stored object of ``kind``, oldest first (two commands, one round trip)."""
        shelf = self.client.key(name, kind)

        def both(client: Any) -> list[Any]:
            with client.pipeline(transaction=True) as pipe:
                replies: list[Any] = pipe.zrange(shelf + ":order", 0, -1).hgetall(shelf).execute()
                return replies

        order, blobs = self.client.call(both)
        return [
            (key, self.decoded(f"{shelf} {key}", decode_stored, kind, blob), blob)
            for key, blob in ((key.decode(), blobs.get(key)) for key in order)
            if blob is not None
        ]


class Outbox(Feed):
    """A held namespace's announcements, sent with its change (and so only if it is written)."""

    def __init__(self) -> None:
        super().__init__(size=1)
        self.sent: list[tuple[Kind, int]] = []

    def publish(self, kind: Kind, namespace: str, seq: int = 0) -> None:
        self.sent.append((kind, seq))


class JournalView:
    """A namespace's journal on Redis: entries appended in a change are written with it;
    reading fetches them all (one round trip), which only the control API and views do."""

    def __init__(self, reads: Reads, name: str) -> None:
        self.reads, self.name = reads, name
        self.added: list[JournalEntry] = []
        #: How many entries Redis holds (from the namespace's journal number).
        self.known = 0
        self._loaded: list[JournalEntry] | None = None

    def _all(self) -> list[JournalEntry]:
        if self._loaded is None:
            self._loaded = self.reads.entries(self.name)
        kept = [*self._loaded, *self.added]
        limit = self.reads.journal_limit
        return kept[-limit:] if limit else []

    def append(self, entry: JournalEntry, /) -> None:
        self.added.append(entry)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self._all())

    def __len__(self) -> int:
        return min(self.known + len(self.added), self.reads.journal_limit)

    def __getitem__(self, index: int, /) -> JournalEntry:
        return self._all()[index]


class RedisShelf(Generic[V]):
    """The stored objects of one kind on Redis: each one read is fetched (and kept for the
    change), and written back with it only if it changed."""

    def __init__(self, reads: Reads, name: str, kind: str) -> None:
        self.reads, self.name, self.kind = reads, name, kind
        #: id → (object, the bytes it was read as; b"" for one put in this change), or
        #: ``None`` for none (not found, or deleted in this change).
        self._seen: dict[str, tuple[V, bytes] | None] = {}
        self._deleted: set[str] = set()

    def get(self, key: str, /) -> V | None:
        if key not in self._seen:
            self._seen[key] = self.reads.stored(self.name, self.kind, key)
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
        found: dict[str, V] = {}
        for key, stored, blob in self.reads.every_stored(self.name, self.kind):
            if key not in self._deleted:
                seen = self._seen.get(key)
                if seen is None:
                    seen = self._seen[key] = (stored, blob)
                found[key] = seen[0]
        for key, seen in self._seen.items():
            if seen is not None:
                found.setdefault(key, seen[0])
        return list(found.values())

    def __len__(self) -> int:
        return len(list(self.values()))

    def changes(self) -> Iterator[list[object]]:
        """What to write with the change: ``[kind, 'set'/'del', id, bytes, weighed]`` each."""
        weighed = "1" if KINDS[self.kind].weighed else ""
        for key in self._deleted:
            yield [self.kind, "del", key, b"", weighed]
        for key, seen in self._seen.items():
            if seen is not None and (now := encode_stored(seen[0])) != seen[1]:
                yield [self.kind, "set", key, now, weighed]


def shelf_of(shelf: object) -> RedisShelf[Any]:
    assert isinstance(shelf, RedisShelf)  # this backend's namespaces hold RedisShelves
    return shelf
