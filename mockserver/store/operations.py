"""The namespace operations the control API and the pytest plugin perform (switch scenario,
seed, one-off replies, clock, hit counts, journal), written once on a :class:`Store`'s
primitives, each change one ``transact`` announced with it: both callers behave alike on
either backend, and every change reaches the inspector's feed."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from mockserver.store.base import Store
from mockserver.store.model import JournalEntry, Namespace

__all__ = [
    "advance_clock",
    "journal",
    "queue_replies",
    "rule_hits",
    "set_seed",
    "switch_scenario",
]


def switch_scenario(
    store: Store,
    name: str,
    scenario: Any,
    *,
    restart: bool = True,
    carry: Collection[str] = (),
) -> dict[str, int]:
    """Serve ``scenario`` (a ``Scenario``; ``None``: the server's default, with every rule
    count forgotten) to the namespace ``name``.

    With ``restart``, the scenario's rule counts start afresh (its ``times`` and the place
    in its ``replies``); the counts it had are returned. Rules named in ``carry`` go on
    counting from the scenario served before (the pytest plugin's inline rules, which stay
    in front of every scenario a test serves)."""

    def switch(space: Namespace) -> dict[str, int]:
        earlier: dict[str, int] = {}
        previous = space.scenario
        carried: dict[str, int] = {}
        if previous is not None and carry:
            counts = space.rule_hits.get(previous.name, {})
            carried = {rule: n for rule, n in counts.items() if rule in carry}
        space.scenario = scenario
        if scenario is None:
            space.rule_hits.clear()
        else:
            if restart:
                earlier = space.rule_hits.pop(scenario.name, {})
            space.hits_of(scenario.name).update(carried)
        space.announce()
        return earlier

    return store.transact(name, switch)


def set_seed(store: Store, name: str, seed: int | None) -> None:
    """The namespace's own seed (``None``: the scenario's, else the server's)."""

    def reseed(space: Namespace) -> None:
        space.seed = seed
        space.announce()

    store.transact(name, reseed)


def queue_replies(store: Store, name: str, replies: Iterable[Any]) -> int:
    """Serve these one-off replies (scenario ``Reply`` objects) to the namespace's next
    requests, before any rule; returns how many are waiting."""
    queued = list(replies)

    def queue(space: Namespace) -> int:
        space.pending.extend(queued)
        space.announce()
        return len(space.pending)

    return store.transact(name, queue)


def advance_clock(store: Store, name: str, seconds: float) -> float:
    """Move the namespace's clock ahead; returns how far it now runs ahead."""

    def advance(space: Namespace) -> float:
        space.clock_offset += seconds
        space.announce()
        return space.clock_offset

    return store.transact(name, advance)


def rule_hits(store: Store, name: str) -> dict[str, dict[str, int]]:
    """Each scenario's rule hit counts in the namespace (a copy)."""
    with store.view(name) as space:
        return {scenario: dict(counts) for scenario, counts in space.rule_hits.items()}


def journal(store: Store, name: str) -> list[JournalEntry]:
    """The namespace's journal, oldest first (a copy of the list)."""
    with store.view(name) as space:
        return list(space.journal)
