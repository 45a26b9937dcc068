"""The Store: the one gateway to mutable state, per namespace.

A namespace isolates one test (or one client) from another: its scenario and seed, counters,
rule hits, one-off replies, clock, budgets, journal and stored objects. Everything that reads
or changes them goes through a :class:`Store`; nothing here decides anything about rules or
replies.

A backend implements the primitives (abstract below): a namespace held for an atomic change
(:meth:`Store.namespace`), a detached read (:meth:`Store.view`, :meth:`Store.peek`), the names
in use, a reset, the bounded puts of stored objects, the completion of an exchange's journal
entries, and a change :class:`~mockserver.store.feed.Feed`. The namespace operations that the
control API and the pytest plugin perform (switch scenario, seed, one-off replies, clock,
reset) are written once, here, on those primitives, so both callers behave alike and each
change is announced on the feed. The memory backend (``memory.py``) holds namespaces in this
process under one lock; a shared backend makes :meth:`Store.namespace` a transaction (read on
enter, written atomically on exit).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager
from typing import Any, Literal, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import (
    Exchange,
    JournalEntry,
    Namespace,
    StoredChatCompletion,
    StoredConversation,
    StoredResponse,
)

__all__ = ["Store"]

T = TypeVar("T")


class Store(ABC):
    """Every namespace's state, bounded: ``namespace_limit`` namespaces (the least recently
    used leaves first), each with at most ``journal_limit`` journal entries and ``store_limit``
    stored objects of each kind."""

    journal_limit: int
    store_limit: int
    namespace_limit: int
    #: Where changes are announced (the inspector's live view, ``/__mockserver/events``).
    feed: Feed
    #: Does a change wait on another process (a shared backend's round trip)? Then a caller on
    #: the event loop uses :meth:`transact_soon`, not a synchronous step in a callback.
    waits: bool = False

    # -- primitives: what a backend implements -------------------------------------------

    @abstractmethod
    def namespace(self, name: str) -> AbstractContextManager[Namespace]:
        """``with store.namespace(name) as space``: the namespace called ``name`` (created on
        first use), held for one atomic change: whatever is done to ``space`` inside the block
        is one step for every other reader and writer."""

    @abstractmethod
    def view(self, name: str) -> AbstractContextManager[Namespace]:
        """For reading only: the namespace called ``name``, else what a new one would show
        (looking neither creates a namespace nor makes one more recent)."""

    @abstractmethod
    def peek(self, name: str) -> AbstractContextManager[Namespace | None]:
        """Like :meth:`view`, but ``None`` for a namespace that does not exist."""

    @abstractmethod
    def names(self) -> list[str]:
        """The namespaces in use, least recently used first."""

    @abstractmethod
    def reset(self, name: str) -> None:
        """Forget the namespace called ``name`` (it comes back new on its next use)."""

    @abstractmethod
    def complete(
        self,
        exchange: Exchange,
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        """Stamp the entries an exchange journaled with how long it took (and, for a stream,
        whether it was ``cut`` before its last write), and announce them."""

    @abstractmethod
    def complete_one(
        self, name: str, entry: JournalEntry, *, duration_ms: float, timing: list[float] | None
    ) -> None:
        """:meth:`complete` for an exchange that journaled ``entry`` alone."""

    @abstractmethod
    def put_chat_completion(self, space: Namespace, stored: StoredChatCompletion) -> None:
        """Keep ``stored`` in ``space`` (held), dropping the oldest past ``store_limit``."""

    @abstractmethod
    def put_response(self, space: Namespace, stored: StoredResponse) -> None:
        """Keep ``stored`` in ``space`` (held), dropping the oldest past ``store_limit``."""

    @abstractmethod
    def put_conversation(self, space: Namespace, stored: StoredConversation) -> None:
        """Keep ``stored`` in ``space`` (held), dropping the oldest past ``store_limit``."""

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work(space)`` on the namespace ``name``, held, as one atomic change; its value.

        A shared backend may do ``work`` more than once (each time on the namespace as it is
        then; only the last one counts), so ``work`` must change nothing but the namespace:
        what a request's turn is. Here: once, inside :meth:`namespace`."""
        with self.namespace(name) as space:
            return work(space)

    async def transact_soon(self, name: str, work: Callable[[Namespace], T]) -> T:
        """:meth:`transact` for a caller on the event loop: a backend whose change waits on
        another process (``waits``) awaits it, and the loop serves other requests meanwhile.
        Here: :meth:`transact`, at once."""
        return self.transact(name, work)

    def loop_starts(self) -> None:  # noqa: B027 (a backend with connections overrides it)
        """The running event loop serves requests (called on it): a shared backend may keep
        a connection on it for :meth:`transact_soon`."""

    def loop_ends(self) -> None:  # noqa: B027
        """The running event loop stops serving (called on it): close what was kept on it."""

    def announce(self, kind: Literal["entry", "state", "reset"], name: str, seq: int = 0) -> None:
        """Tell every live view (of every process sharing this store) of a change."""
        self.feed.publish(kind, name, seq)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        """The namespace's journal entry numbered ``seq``, unless it has left the journal."""
        with self.peek(name) as space:
            return space.entry(seq) if space is not None else None

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:  # noqa: B027
        """How to find a scenario by name (the engine's loaded ones, then the built-in ones;
        ``None`` if neither): a shared backend writes those by name."""

    def close(self) -> None:  # noqa: B027 (a backend with connections overrides it)
        """Let go of what the backend holds open (its connections, its feed's reader)."""

    # -- namespace operations: the control API's and the pytest plugin's -----------------

    def switch_scenario(
        self,
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
        earlier: dict[str, int] = {}
        with self.namespace(name) as space:
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
        self.announce("state", name)
        return earlier

    def set_seed(self, name: str, seed: int | None) -> None:
        """The namespace's own seed (``None``: the scenario's, else the server's)."""
        with self.namespace(name) as space:
            space.seed = seed
        self.announce("state", name)

    def queue_replies(self, name: str, replies: Iterable[Any]) -> int:
        """Serve these one-off replies (scenario ``Reply`` objects) to the namespace's next
        requests, before any rule; returns how many are waiting."""
        with self.namespace(name) as space:
            space.pending.extend(replies)
            waiting = len(space.pending)
        self.announce("state", name)
        return waiting

    def advance_clock(self, name: str, seconds: float) -> float:
        """Move the namespace's clock ahead; returns how far it now runs ahead."""
        with self.namespace(name) as space:
            space.clock_offset += seconds
            offset = space.clock_offset
        self.announce("state", name)
        return offset

    def rule_hits(self, name: str) -> dict[str, dict[str, int]]:
        """Each scenario's rule hit counts in the namespace (a copy)."""
        with self.view(name) as space:
            return {scenario: dict(counts) for scenario, counts in space.rule_hits.items()}

    def journal(self, name: str) -> list[JournalEntry]:
        """The namespace's journal, oldest first (a copy of the list)."""
        with self.view(name) as space:
            return list(space.journal)
