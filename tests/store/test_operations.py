"""The namespace operations the control API and the pytest plugin share: one behaviour, each
change announced on the feed."""

from __future__ import annotations

from mockserver.scenario.model import Reply, Scenario
from mockserver.store import Store, operations


def _scenario(name: str) -> Scenario:
    return Scenario(name=name, rules=[])


def _changes(store: Store, since: int) -> list[tuple[str, str]]:
    found = store.feed.since(since)
    assert found is not None
    return [(change.kind, change.namespace) for change in found]


def test_switching_scenario_restarts_its_counts_and_returns_them(store: Store) -> None:
    weather = _scenario("weather")
    operations.switch_scenario(store, "sk-a", weather)
    store.transact("sk-a", lambda space: space.hits_of("weather").update(ask=2))
    assert operations.switch_scenario(store, "sk-a", weather) == {"ask": 2}
    assert operations.rule_hits(store, "sk-a") == {"weather": {}}


def test_switching_without_restart_keeps_the_counts(store: Store) -> None:
    weather = _scenario("weather")
    operations.switch_scenario(store, "sk-a", weather)
    store.transact("sk-a", lambda space: space.hits_of("weather").update(ask=2))
    assert operations.switch_scenario(store, "sk-a", weather, restart=False) == {}
    assert operations.rule_hits(store, "sk-a") == {"weather": {"ask": 2}}


def test_carried_rules_go_on_counting_in_the_next_scenario(store: Store) -> None:
    operations.switch_scenario(store, "sk-a", _scenario("first"))
    store.transact("sk-a", lambda space: space.hits_of("first").update({"inline-1": 3, "own": 1}))
    operations.switch_scenario(store, "sk-a", _scenario("second"), carry={"inline-1"})
    assert operations.rule_hits(store, "sk-a")["second"] == {"inline-1": 3}


def test_back_to_the_default_forgets_every_count(store: Store) -> None:
    operations.switch_scenario(store, "sk-a", _scenario("first"))
    store.transact("sk-a", lambda space: space.hits_of("first").update(x=1))
    operations.switch_scenario(store, "sk-a", None)
    with store.view("sk-a") as space:
        assert space.scenario is None
    assert operations.rule_hits(store, "sk-a") == {}


def test_every_operation_is_announced_on_the_feed(store: Store) -> None:
    since = store.feed.version
    operations.switch_scenario(store, "sk-a", _scenario("first"))
    operations.set_seed(store, "sk-a", 7)
    assert operations.queue_replies(store, "sk-a", [Reply(text="one"), Reply(text="two")]) == 2
    assert operations.advance_clock(store, "sk-a", 1.5) == 1.5
    store.reset("sk-a")
    assert _changes(store, since) == [
        ("state", "sk-a"),
        ("state", "sk-a"),
        ("state", "sk-a"),
        ("state", "sk-a"),
        ("reset", "sk-a"),
    ]


def test_seed_and_queue_land_in_the_namespace(store: Store) -> None:
    operations.set_seed(store, "sk-a", 7)
    operations.queue_replies(store, "sk-a", [Reply(text="one")])
    with store.view("sk-a") as space:
        assert space.seed == 7
        assert list(space.pending) == [Reply(text="one")]
    with store.view("sk-b") as other:
        assert other.seed is None
        assert not other.pending


def test_views_create_nothing(store: Store) -> None:
    with store.view("sk-never") as space:
        assert space.journal_seq == 0
    with store.peek("sk-never") as missing:
        assert missing is None
    assert store.names() == []
    assert operations.journal(store, "sk-never") == []
