"""Memory bounds of a long-running server: namespaces, and what each one keeps."""

from __future__ import annotations

from mockserver.engine import Engine
from mockserver.settings import Settings
from mockserver.store import JournalEntry, Store, StoredConversation
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
