"""Memory bounds of a long-running server: namespaces, and what each one keeps."""

from __future__ import annotations

from mockserver.engine import Engine
from mockserver.settings import Settings
from mockserver.store import JournalEntry, MemoryStore, Store, StoredConversation
from tests.support.stores import NewStore


def _touch(store: Store, name: str) -> None:
    with store.namespace(name):
        pass


def test_the_least_recently_used_namespace_leaves_first(new_store: NewStore) -> None:
    store = new_store(namespace_limit=2)
    _touch(store, "a")
    _touch(store, "b")
    _touch(store, "a")  # "b" is now the least recently used
    _touch(store, "c")
    assert store.names() == ["a", "c"]


def test_a_dropped_namespace_starts_afresh_and_live_views_hear_of_it(new_store: NewStore) -> None:
    store = new_store(namespace_limit=1)
    with store.namespace("a") as space:
        space.record(JournalEntry(seq=0, method="POST", path="/v1/chat/completions", status=200))
    _touch(store, "b")
    _, changes = store.feed.recent()
    assert ("reset", "a") in [(c.kind, c.namespace) for c in changes]
    with store.namespace("a") as space:
        assert list(space.journal) == []


def test_the_journal_keeps_the_newest_entries(new_store: NewStore) -> None:
    store = new_store(journal_limit=3)
    for _ in range(5):
        with store.namespace("a") as space:
            space.record(JournalEntry(seq=0, method="GET", path="/", status=200))
    assert [e.seq for e in store.journal("a")] == [3, 4, 5]
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
    from mockserver.store import Exchange, Unparsed

    store = new_store(journal_limit=2, journal_bytes=10_000)

    def change(sizes: list[int]) -> None:
        with store.namespace("a") as space:
            entries = []
            for size in sizes:
                body = Unparsed(b"x" * size, bytes)
                entry = JournalEntry(seq=0, method="POST", path="/", status=200, request=body)
                space.record(entry, announce=False)
                entries.append(("a", entry))
        store.complete(Exchange(entries), duration_ms=2.0, timing=None)
        getattr(store, "flush", lambda: None)()  # Redis writes the times off the request's path

    change([10, 10, 10])
    assert [e.seq for e in store.journal("a")] == [2, 3]
    assert store.entry("a", 1) is None  # never kept, not even unseen
    change([10])
    assert [e.seq for e in store.journal("a")] == [3, 4]
    change([4000, 4000, 4000])  # two of them over the bytes with the one before
    kept = store.journal("a")
    assert [e.seq for e in kept] == [6, 7]
    assert [e.duration_ms for e in kept] == [2.0, 2.0]
    assert kept[0].number < kept[1].number
    assert store.entry("a", 3) is None
    change([3000])
    assert [e.seq for e in store.journal("a")] == [7, 8]  # 4000 + 3000: under the bound


def test_stored_objects_past_the_limit_drop_the_oldest(new_store: NewStore) -> None:
    store = new_store(store_limit=2)
    for n in range(3):
        with store.namespace("a") as space:
            store.put_conversation(space, StoredConversation(f"conv_{n}", n, {}))
    with store.view("a") as space:
        assert [c.id for c in space.conversations.values()] == ["conv_1", "conv_2"]
        assert "conv_0" not in space.conversations


def test_a_new_api_key_per_request_keeps_the_namespace_count_bounded() -> None:
    engine = Engine(Settings(namespace_limit=3, journal_limit=2))
    for n in range(50):
        with engine.store.namespace(f"sk-{n}") as space:
            for _ in range(5):
                space.record(JournalEntry(seq=0, method="GET", path="/", status=200))
    assert engine.store.names() == ["sk-47", "sk-48", "sk-49"]
    with engine.store.namespace("sk-49") as space:
        assert len(space.journal) == 2


def test_the_journal_is_bounded_in_bytes_oldest_first() -> None:
    from mockserver.store import Exchange, Unparsed

    store = MemoryStore(journal_bytes=1000)
    for _ in range(4):
        with store.namespace("sk-a") as space:
            entry = JournalEntry(
                seq=0, method="POST", path="/v1/x", status=200, request=Unparsed(b"x" * 400, bytes)
            )
            space.record(entry, announce=False)
        store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    with store.view("sk-a") as space:
        assert [e.seq for e in space.journal] == [3, 4]
        assert space.journal_bytes == 800


def test_one_entry_over_the_bound_is_still_journaled() -> None:
    from mockserver.store import Unparsed

    store = MemoryStore(journal_bytes=10)
    with store.namespace("sk-a") as space:
        entry = JournalEntry(
            seq=0, method="POST", path="/v1/x", status=200, request=Unparsed(b"x" * 400, bytes)
        )
        space.record(entry, announce=False)
    store.complete_one("sk-a", entry, duration_ms=1.0, timing=None)
    assert [e.seq for e in store.journal("sk-a")] == [1]


def test_stored_objects_are_bounded_in_bytes_oldest_first() -> None:
    from mockserver.store import StoredChatCompletion

    store = MemoryStore(store_bytes=1000)
    with store.namespace("sk-a") as space:
        for number in range(4):
            body = {"id": f"chatcmpl-{number}"}
            store.put_chat_completion(space, StoredChatCompletion(body, [], {}, size=400))
        assert list(space.chat_completions) == ["chatcmpl-2", "chatcmpl-3"]
        assert space.chat_completions.bytes == 800
        del space.chat_completions["chatcmpl-2"]  # a delete keeps the count right
        assert space.chat_completions.bytes == 400


def test_every_backend_bounds_the_journal_in_bytes_oldest_first(new_store: NewStore) -> None:
    from mockserver.store import Exchange, Unparsed

    store = new_store(journal_limit=100, journal_bytes=10_000)
    for _ in range(5):
        with store.namespace("sk-a") as space:
            big = Unparsed(b"x" * 4000, bytes)
            entry = JournalEntry(seq=0, method="POST", path="/v1/x", status=200, request=big)
            space.record(entry, announce=False)
        store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    assert [e.seq for e in store.journal("sk-a")] == [4, 5]
    with store.namespace("sk-a") as space:  # one over the bound alone is still journaled
        huge = Unparsed(b"x" * 20_000, bytes)
        entry = JournalEntry(seq=0, method="POST", path="/v1/x", status=200, request=huge)
        space.record(entry, announce=False)
    store.complete(Exchange([("sk-a", entry)]), duration_ms=1.0, timing=None)
    assert [e.seq for e in store.journal("sk-a")] == [6]


def test_every_backend_bounds_stored_completions_in_bytes_oldest_first(new_store: NewStore) -> None:
    from mockserver.store import StoredChatCompletion

    store = new_store(store_limit=100, store_bytes=10_000)
    for number in range(4):
        with store.namespace("sk-a") as space:
            body = {"id": f"chatcmpl-{number}", "content": "x" * 4000}
            store.put_chat_completion(space, StoredChatCompletion(body, [], {}, size=4100))
    with store.namespace("sk-a") as space:
        assert [kept.body["id"] for kept in space.chat_completions.values()] == [
            "chatcmpl-2",
            "chatcmpl-3",
        ]
        del space.chat_completions["chatcmpl-2"]  # a delete gives its bytes back
    with store.namespace("sk-a") as space:
        body = {"id": "chatcmpl-4", "content": "x" * 4000}
        store.put_chat_completion(space, StoredChatCompletion(body, [], {}, size=4100))
    with store.view("sk-a") as space:
        assert [kept.body["id"] for kept in space.chat_completions.values()] == [
            "chatcmpl-3",
            "chatcmpl-4",
        ]
