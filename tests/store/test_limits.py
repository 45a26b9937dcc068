"""Memory bounds of a long-running server: namespaces, and what each one keeps."""

from __future__ import annotations

from mockserver.engine import Engine
from mockserver.settings import Settings
from mockserver.store import (
    Exchange,
    JournalEntry,
    MemoryStore,
    Namespace,
    Store,
    StoredConversation,
    operations,
)
from mockserver.store.stored import Kept
from tests.support.stores import NewStore


def _touch(store: Store, name: str) -> None:
    store.transact(name, lambda space: None)


def _record(store: Store, name: str, entry: JournalEntry, *, announce: bool = True) -> None:
    store.transact(name, lambda space: space.record(entry, announce=announce))


def test_the_least_recently_used_namespace_leaves_first(new_store: NewStore) -> None:
    store = new_store(namespace_limit=2)
    _touch(store, "a")
    _touch(store, "b")
    _touch(store, "a")  # "b" is now the least recently used
    _touch(store, "c")
    assert store.names() == ["a", "c"]


def test_a_dropped_namespace_starts_afresh_and_live_views_hear_of_it(new_store: NewStore) -> None:
    store = new_store(namespace_limit=1)
    _record(store, "a", JournalEntry(seq=0, method="POST", path="/v1/chat/completions", status=200))
    _touch(store, "b")
    _, changes = store.feed.recent()
    assert ("reset", "a") in [(c.kind, c.namespace) for c in changes]
    assert store.transact("a", lambda space: list(space.journal)) == []


def test_the_journal_keeps_the_newest_entries(new_store: NewStore) -> None:
    store = new_store(journal_limit=3)
    for _ in range(5):
        _record(store, "a", JournalEntry(seq=0, method="GET", path="/", status=200))
    assert [e.seq for e in operations.journal(store, "a")] == [3, 4, 5]
    with store.view("a") as space:
        assert len(space.journal) == 3
        assert space.journal_seq == 5
    assert store.entry("a", 2) is None
    found = store.entry("a", 4)
    assert found is not None
    assert found.seq == 4


def test_entries_of_one_change_past_the_limits_keep_the_newest(new_store: NewStore) -> None:
    """Several entries in one change: those it would drop at once are never kept, and the
    count and the bytes stay right for the changes after it."""
    from mockserver.store import Unparsed

    store = new_store(journal_limit=2, journal_bytes=10_000)

    def change(sizes: list[int]) -> None:
        entries = []
        for size in sizes:
            body = Unparsed(b"x" * size, bytes)
            entries.append(
                ("a", JournalEntry(seq=0, method="POST", path="/", status=200, request=body))
            )

        def journal(space: Namespace) -> None:
            for _, entry in entries:
                space.record(entry, announce=False)

        store.transact("a", journal)
        store.complete(Exchange(entries), duration_ms=2.0, timing=None)
        getattr(store, "flush", lambda: None)()  # Redis writes the times off the request's path

    change([10, 10, 10])
    assert [e.seq for e in operations.journal(store, "a")] == [2, 3]
    assert store.entry("a", 1) is None  # never kept, not even unseen
    change([10])
    assert [e.seq for e in operations.journal(store, "a")] == [3, 4]
    change([4000, 4000, 4000])  # two of them over the bytes with the one before
    kept = operations.journal(store, "a")
    assert [e.seq for e in kept] == [6, 7]
    assert [e.duration_ms for e in kept] == [2.0, 2.0]
    assert kept[0].number < kept[1].number
    assert store.entry("a", 3) is None
    change([3000])
    assert [e.seq for e in operations.journal(store, "a")] == [7, 8]  # 4000 + 3000: under the bound


def test_stored_objects_past_the_limit_drop_the_oldest(new_store: NewStore) -> None:
    store = new_store(store_limit=2)
    for n in range(3):
        stored = StoredConversation(f"conv_{n}", n, {})
        store.transact("a", lambda space, stored=stored: store.put(space, "conversations", stored))
    with store.view("a") as space:
        assert [c.id for c in space.conversations.values()] == ["conv_1", "conv_2"]
        assert "conv_0" not in space.conversations


def test_a_new_api_key_per_request_keeps_the_namespace_count_bounded() -> None:
    engine = Engine(Settings(namespace_limit=3, journal_limit=2))
    for n in range(50):
        for _ in range(5):
            _record(
                engine.store, f"sk-{n}", JournalEntry(seq=0, method="GET", path="/", status=200)
            )
    assert engine.store.names() == ["sk-47", "sk-48", "sk-49"]
    with engine.store.view("sk-49") as space:
        assert len(space.journal) == 2


def test_the_journal_is_bounded_in_bytes_oldest_first() -> None:
    from mockserver.store import Unparsed

    store = MemoryStore(journal_bytes=1000)
    for _ in range(4):
        entry = JournalEntry(
            seq=0, method="POST", path="/v1/x", status=200, request=Unparsed(b"x" * 400, bytes)
        )
        _record(store, "sk-a", entry, announce=False)
        store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    with store.view("sk-a") as space:
        assert [e.seq for e in space.journal] == [3, 4]
        assert space.journal_bytes == 800


def test_one_entry_over_the_bound_is_still_journaled() -> None:
    from mockserver.store import Unparsed

    store = MemoryStore(journal_bytes=10)
    entry = JournalEntry(
        seq=0, method="POST", path="/v1/x", status=200, request=Unparsed(b"x" * 400, bytes)
    )
    _record(store, "sk-a", entry, announce=False)
    store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    assert [e.seq for e in operations.journal(store, "sk-a")] == [1]


def test_stored_objects_are_bounded_in_bytes_oldest_first() -> None:
    from mockserver.store import StoredChatCompletion

    store = MemoryStore(store_bytes=1000)

    def keep(space: Namespace) -> None:
        for number in range(4):
            body = {"id": f"chatcmpl-{number}"}
            store.put(space, "chat", StoredChatCompletion(body, [], {}, size=400))
        shelf = space.chat_completions
        assert isinstance(shelf, Kept)
        assert list(shelf) == ["chatcmpl-2", "chatcmpl-3"]
        assert shelf.bytes == 800
        del shelf["chatcmpl-2"]  # a delete keeps the count right
        assert shelf.bytes == 400

    store.transact("sk-a", keep)


def test_every_backend_bounds_the_journal_in_bytes_oldest_first(new_store: NewStore) -> None:
    from mockserver.store import Unparsed

    store = new_store(journal_limit=100, journal_bytes=10_000)
    for _ in range(5):
        big = Unparsed(b"x" * 4000, bytes)
        entry = JournalEntry(seq=0, method="POST", path="/v1/x", status=200, request=big)
        _record(store, "sk-a", entry, announce=False)
        store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    assert [e.seq for e in operations.journal(store, "sk-a")] == [4, 5]
    huge = Unparsed(b"x" * 20_000, bytes)  # one over the bound alone is still journaled
    entry = JournalEntry(seq=0, method="POST", path="/v1/x", status=200, request=huge)
    _record(store, "sk-a", entry, announce=False)
    store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    assert [e.seq for e in operations.journal(store, "sk-a")] == [6]


def test_every_backend_bounds_stored_completions_in_bytes_oldest_first(new_store: NewStore) -> None:
    from mockserver.store import StoredChatCompletion

    store = new_store(store_limit=100, store_bytes=10_000)

    def keep(number: int) -> None:
        body = {"id": f"chatcmpl-{number}", "content": "x" * 4000}
        stored = StoredChatCompletion(body, [], {}, size=4100)
        store.transact("sk-a", lambda space: store.put(space, "chat", stored))

    for number in range(4):
        keep(number)

    def drop(space: Namespace) -> list[str]:
        kept = [stored.body["id"] for stored in space.chat_completions.values()]
        del space.chat_completions["chatcmpl-2"]  # a delete gives its bytes back
        return kept

    assert store.transact("sk-a", drop) == ["chatcmpl-2", "chatcmpl-3"]
    keep(4)
    with store.view("sk-a") as space:
        assert [kept.body["id"] for kept in space.chat_completions.values()] == [
            "chatcmpl-3",
            "chatcmpl-4",
        ]
