"""A namespace's journal and stored objects on Redis, as a change or a view sees them: fetched
only when read (a turn that reads none pays for none), each value decoded once by
``RedisClient.decoded``; what a change adds or announces kept to be written with it
(``change.py``)."""

from __future__ import annotations

from collections.abc import Iterator, Reversible
from functools import partial
from typing import Any, Generic, Literal, TypeVar

from mockserver.store.model import JournalEntry, Namespace
from mockserver.store.redis.client import RedisClient
from mockserver.store.redis.codec import decode_entry, decode_stored, encode_stored
from mockserver.store.stored import KINDS

__all__ = [
    "JournalView",
    "Outbox",
    "RedisShelf",
    "journal_of",
    "read_entries",
    "read_entry",
    "shelf_of",
]

V = TypeVar("V")


def read_entry(client: RedisClient, name: str, seq: int) -> JournalEntry | None:
    fields = (str(seq), f"t:{seq}", f"c:{seq}")  # the entry, its times, its call number
    key = client.key(name, "journal")
    found = client.call(lambda r: r.hmget(key, fields))
    if found[0] is None:
        return None
    return client.decoded(f"{key} {seq}", partial(decode_entry, *found))


def read_entries(client: RedisClient, name: str) -> list[JournalEntry]:
    """The namespace's journal, oldest first: each entry beside its times and call number in
    the one hash (``scripts.lua``)."""
    key = client.key(name, "journal")
    fields: dict[bytes, bytes] = client.call(lambda r: r.hgetall(key))
    entries = [
        client.decoded(
            f"{key} {seq.decode()}",
            partial(decode_entry, blob, fields.get(b"t:" + seq), fields.get(b"c:" + seq)),
        )
        for seq, blob in fields.items()
        if seq.isdigit()
    ]
    return sorted(entries, key=lambda e: e.seq)


class JournalView:
    """A namespace's journal on Redis: entries appended in a change are written with it;
    reading fetches them all (one round trip), which only the control API and views do.
    ``limit`` is the entries a journal keeps."""

    def __init__(self, client: RedisClient, name: str, *, limit: int, known: int = 0) -> None:
        self.client, self.name, self.limit = client, name, limit
        self.added: list[JournalEntry] = []
        #: How many entries Redis holds (from the namespace's journal number).
        self.known = known
        self._loaded: list[JournalEntry] | None = None

    def _all(self) -> list[JournalEntry]:
        if self._loaded is None:
            self._loaded = read_entries(self.client, self.name)
        return [*self._loaded, *self.added][-self.limit :] if self.limit else []

    def append(self, entry: JournalEntry, /) -> None:
        self.added.append(entry)

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self._all())

    def __len__(self) -> int:
        return min(self.known + len(self.added), self.limit)

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


def journal_of(space: Namespace) -> JournalView:
    journal = space.journal
    assert isinstance(journal, JournalView)  # this backend's namespaces hold JournalViews
    return journal
