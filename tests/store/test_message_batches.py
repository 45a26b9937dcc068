"""Anthropic's Message Batches kept in the Store, on each backend: a batch made in one store is
read, canceled, listed and deleted through another (on Redis: sharing the keys, as another
process would), and its status follows the namespace's clock."""

from __future__ import annotations

import orjson
import pytest

from mockserver.engine import Engine
from mockserver.engine import message_batches as batches
from mockserver.errors import InvalidRequestError, NotFoundError
from mockserver.settings import Settings
from mockserver.store import MemoryStore, Namespace
from mockserver.wire.message_batches import parse_batch_create
from tests.support.stores import NewStore

ROOT = "http://127.0.0.1:9/"


def _create(n: int) -> dict[str, object]:
    return {
        "requests": [
            {
                "custom_id": f"r{i}",
                "params": {
                    "model": "claude-haiku-4-5",
                    "max_tokens": 30,
                    "messages": [{"role": "user", "content": f"question {i}"}],
                },
            }
            for i in range(n)
        ]
    }


def _engines(new_store: NewStore) -> tuple[Engine, Engine]:
    """Two engines, as two processes: on one memory store, or on two sharing Redis."""
    settings = Settings(clock="frozen", batch_seconds=10)
    store = new_store()
    other = store if isinstance(store, MemoryStore) else new_store()
    return Engine(settings, store=store), Engine(settings, store=other)


def _advance(engine: Engine, seconds: float) -> None:
    def move(space: Namespace) -> None:
        space.clock_offset += seconds

    engine.store.transact("ns", move)


def test_a_batch_made_in_one_store_ends_and_is_read_in_another(new_store: NewStore) -> None:
    first, second = _engines(new_store)
    body = parse_batch_create(_create(2))
    made = first.store.transact(
        "ns", lambda space: batches.create_batch(first, space, body, root=ROOT)
    )
    assert made["processing_status"] == "in_progress"
    _advance(second, 10)
    with second.store.view("ns") as space:
        seen = batches.retrieve_batch(second, space, str(made["id"]))
        lines = batches.batch_results(second, space, str(made["id"]))
    assert seen["processing_status"] == "ended"
    assert seen["results_url"] == f"http://127.0.0.1:9/v1/messages/batches/{made['id']}/results"
    results = [orjson.loads(line) for line in lines.splitlines()]
    assert [r["custom_id"] for r in results] == ["r0", "r1"]
    assert all(r["result"]["type"] == "succeeded" for r in results)


def test_a_cancel_in_one_store_is_seen_by_another(new_store: NewStore) -> None:
    first, second = _engines(new_store)
    body = parse_batch_create(_create(4))
    batch_id = str(
        first.store.transact(
            "ns", lambda space: batches.create_batch(first, space, body, root=ROOT)
        )["id"]
    )
    _advance(first, 6)  # two of four done, the third in flight
    canceled = second.store.transact(
        "ns", lambda space: batches.cancel_batch(second, space, batch_id)
    )
    assert canceled["processing_status"] == "canceling"
    with pytest.raises(InvalidRequestError, match="in progress"):
        first.store.transact("ns", lambda space: batches.delete_batch(first, space, batch_id))
    _advance(first, 1.5)  # the third is done: the batch has ended
    with first.store.view("ns") as space:
        ended = batches.retrieve_batch(first, space, batch_id)
    assert ended["processing_status"] == "ended"
    assert ended["request_counts"] == {
        "processing": 0,
        "succeeded": 3,
        "errored": 0,
        "canceled": 1,
        "expired": 0,
    }
    second.store.transact("ns", lambda space: batches.delete_batch(second, space, batch_id))
    with first.store.view("ns") as space, pytest.raises(NotFoundError):
        batches.retrieve_batch(first, space, batch_id)


def test_batches_are_listed_newest_first_from_any_store(new_store: NewStore) -> None:
    first, second = _engines(new_store)
    made = [
        first.store.transact(
            "ns",
            lambda space: batches.create_batch(
                first, space, parse_batch_create(_create(1)), root=ROOT
            ),
        )["id"]
        for _ in range(3)
    ]
    with second.store.view("ns") as space:
        listed = batches.list_batches(second, space)
    assert [b["id"] for b in listed] == made[::-1]


def test_a_batch_past_its_expiry_ends_with_the_rest_expired(new_store: NewStore) -> None:
    settings = Settings(clock="frozen", batch_seconds=4 * 24 * 3600)
    engine = Engine(settings, store=new_store())
    body = parse_batch_create(_create(8))
    batch_id = str(
        engine.store.transact(
            "ns", lambda space: batches.create_batch(engine, space, body, root=ROOT)
        )["id"]
    )
    _advance(engine, 24 * 3600)
    with engine.store.view("ns") as space:
        ended = batches.retrieve_batch(engine, space, batch_id)
    assert ended["processing_status"] == "ended"
    assert ended["ended_at"] == ended["expires_at"]
    counts = ended["request_counts"]
    assert isinstance(counts, dict)
    assert (counts["succeeded"], counts["expired"]) == (2, 6)
