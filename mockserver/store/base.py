"""The Store: the one gateway to mutable state, per namespace.

A namespace isolates one test (or one client) from another: its scenario and seed, counters,
rule hits, one-off replies, clock, budgets, journal and stored objects. Everything that reads
or changes them goes through a :class:`Store`; nothing here decides anything about rules or
replies.

One way to change a namespace: :meth:`Store.transact` hands ``work`` the namespace, held, and
whatever ``work`` does to it is one atomic step for every other reader and writer (a request's
whole turn is one). Two ways to read one, detached: :meth:`Store.view` and :meth:`Store.peek`.
A backend implements those (abstract below), the names in use, a reset, the bounded
:meth:`Store.put` of stored objects, the completion of an exchange's journal entries, and a
change :class:`~mockserver.store.feed.Feed`; nothing more is a store's (the operations the
control API and the pytest plugin perform are functions of a store: ``operations.py``). The
memory backend (``memory.py``) holds namespaces in this process under one lock; the Redis one
(``redis/``) writes each change with one compare-and-set script.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import Exchange, JournalEntry, Namespace

__all__ = ["AwaitedTurns", "Store"]

T = TypeVar("T")


class Store(ABC):
    """Every namespace's state, bounded: ``namespace_limit`` namespaces (the least recently
    used leaves first), each with at most ``journal_limit`` journal entries and ``store_limit``
    stored objects of each kind.

    The kinds of stored object are the rows of ``stored.KINDS``: a kind is added there (its
    dataclass, the :class:`~mockserver.store.model.Namespace` shelf that keeps it, its id,
    whether its bytes are bounded) and its shelf on ``Namespace``; both backends then put,
    bound, write and read it with no change of theirs."""

    journal_limit: int
    store_limit: int
    namespace_limit: int
    #: Where changes are announced (the inspector's live view, ``/__mockserver/events``).
    feed: Feed
    #: For a caller on the event loop, where a change waits on another process (a shared
    #: backend's round trip): :meth:`transact`, awaited, so the loop serves other requests
    #: meanwhile (``None``: nothing to await, :meth:`transact` it is).
    turns: AwaitedTurns | None = None

    @abstractmethod
    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work(space)`` on the namespace ``name`` (created on first use), held, as one
        atomic change; its value. What ``work`` changed stands if it raises, as does what it
        announced; the exception is raised once the change is made.

        A shared backend may do ``work`` more than once (each time on the namespace as it is
        then; only the last one counts), so ``work`` must change nothing but the namespace (a
        request's turn is a function of the namespace and the request), and never changes a
        namespace but through the one it is handed."""

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
    def put(self, space: Namespace, kind: str, stored: Any) -> None:
        """Keep ``stored``, an object of ``kind`` (a key of ``stored.KINDS``), in ``space``
        (held), dropping the oldest of its kind past ``store_limit`` (or, for a weighed
        kind, past ``store_bytes``)."""

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        """The namespace's journal entry numbered ``seq``, unless it has left the journal."""
        with self.peek(name) as space:
            return space.entry(seq) if space is not None else None

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:  # noqa: B027
        """How to find a scenario by name (the engine's loaded ones, then the built-in ones;
        ``None`` if neither): a shared backend writes those by name."""


class AwaitedTurns(Protocol):
    """:meth:`Store.transact` for callers on an event loop the server announced: the change
    is the same one, written by the same protocol, its round trip awaited."""

    async def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """:meth:`Store.transact`, awaited."""
        ...

    def loop_starts(self) -> None:
        """The running event loop serves requests (called on it)."""

    def loop_ends(self) -> None:
        """The running event loop stops serving (called on it, before it closes)."""
