"""A namespace on Redis as a change or a view sees it, and how it changes: one compare-and-set
protocol.

A namespace is its state, decoded, with its journal and stored objects fetched only when read
(``views.py``).

A change is made on the namespace's state as this process last saw it, in its version V, and
one script call writes it — state, journal entries, stored-object changes, announcements — if
the namespace is still in V and nobody else holds its lease. If another process wrote it in
between, the call answers with the state and the version as they are now, and the change is
made again on those: a retry costs one round trip (a turn is a function of the namespace and
the request: made again, it is what it would have been). A namespace this process has not seen
is tried as a new one (version ``''``). The ``LEASE_AFTER``-th miss in a row also takes the
namespace's lease for ``LEASE_MS``, so that this process's next try cannot miss (but for a
reset); a process that meets another's lease waits a moment and tries again, and past ``WAIT``
answers the API's 503. The version a change writes is named in advance
(``RedisClient.new_version``), so the next change can be made on it before it is written: the
awaited turns of ``pipe.py`` do, with the same :meth:`Changes.begin` and :meth:`Changes.settle`.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import Namespace, current_exchange
from mockserver.store.redis.client import (
    RedisClient,
    StateUnavailableError,
    escape,
    unavailable,
    unescape,
)
from mockserver.store.redis.codec import ScenarioCodec, encode_entry
from mockserver.store.redis.views import JournalView, Outbox, RedisShelf, journal_of, shelf_of
from mockserver.store.stored import KINDS

__all__ = ["LEASE_AFTER", "Attempt", "Changes"]

T = TypeVar("T")

#: Misses in a row after which a change takes the namespace's lease, and for how long.
LEASE_AFTER = 3
LEASE_MS = 500
#: How long a change waits out other processes' leases before it is the API's 503.
WAIT = 2.5
#: The state and version of a namespace this process has not seen: tried as a new one.
UNSEEN = (b"", b"")


@dataclass(slots=True)
class Attempt(Generic[T]):
    """A change made, before Redis has written it: the script call that writes it, and what
    to settle once Redis answers; once it missed, what to make the change on again."""

    space: Namespace
    #: The namespace's state after the change, and the version it is written as.
    state: bytes
    version: bytes
    args: list[object]
    #: Does the change write stored objects (a change made on it would read them as they were)?
    shelved: bool
    value: T | None
    failure: BaseException | None
    #: How many entries the exchange had journaled before it.
    journaled: int
    #: Misses in a row before it, and since when leases held the namespace (0: none did).
    misses: int
    since: float
    #: Once missed: the namespace's state and version as Redis answered, and the seconds to
    #: wait before it is made again.
    known: tuple[bytes, bytes] = UNSEEN
    pause: float = 0.0

    def result(self) -> T:
        """What ``work`` returned, or raised (once the change is written)."""
        if self.failure is not None:
            raise self.failure
        return self.value  # type: ignore[return-value]  # work returned it: a T


class Changes:
    """The namespaces on Redis, read and changed (see the module's docstring), and the states
    this process last saw. ``limits`` are the bounds the script keeps (``Store``'s docstring):
    namespaces, journal entries and bytes, stored objects and bytes."""

    def __init__(
        self,
        client: RedisClient,
        codec: ScenarioCodec,
        feed: Feed,
        *,
        limits: tuple[int, int, int, int, int],
    ) -> None:
        self.client, self.codec, self.feed, self.limits = client, codec, feed, limits
        #: Per namespace, its state and version as this process last wrote or read them, and
        #: the namespace it wrote (made on again as it is; the least recently used leave).
        self._known: OrderedDict[str, tuple[bytes, bytes, Namespace | None]] = OrderedDict()

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` done on the namespace ``name`` as one change, waiting on Redis's answers."""
        attempt: Attempt[T] | None = None
        while True:
            on = attempt.known if attempt is not None else self.known(name)
            attempt = self.begin(name, work, on, after=attempt)
            if self.settle(attempt, self.client.run("change", *attempt.args)):
                return attempt.result()
            if attempt.pause:
                time.sleep(attempt.pause)

    def complete(self, riding: Sequence[object]) -> None:
        """Write completed entries' times now (escaped name, seq, times each); Redis lost, they
        are not (the outage is logged once, where it began)."""
        with suppress(StateUnavailableError):
            self.client.run("complete", len(riding) // 3, *riding)

    def state(self, name: str) -> bytes | None:
        key = self.client.key(name, "state")
        found: bytes | None = self.client.call(lambda r: r.get(key))
        return found

    def space(self, name: str, state: bytes | None, *, fresh: bool = False) -> Namespace:
        """The namespace ``name`` from its ``state`` as written (``None``: a new one; with
        ``fresh``, one that a change makes: a new incarnation)."""
        space = Namespace(name=name, journal=JournalView(self.client, name, limit=0))  # (for now)
        if state:
            key = self.client.key(name, "state")
            self.client.decoded(key, lambda: self.codec.decode_state(state, space))
        elif fresh:  # told apart from the namespaces of this name before it (and after)
            space.incarnation = secrets.randbits(62) + 1
        return self.seen_anew(space)

    def seen_anew(self, space: Namespace) -> Namespace:
        """``space`` with its journal and stored objects as a new change sees them (fetched
        when read, nothing added yet)."""
        limit = self.limits[1]
        known = min(space.journal_seq, limit)
        space.journal = JournalView(self.client, space.name, limit=limit, known=known)
        base = None
        for kind, of in KINDS.items():
            shelf = getattr(space, of.shelf)
            if isinstance(shelf, RedisShelf) and not shelf.touched:
                continue  # as a new one would be (most changes touch no stored object)
            base = base or self.client.key(space.name, "")
            setattr(space, of.shelf, RedisShelf(self.client, base, kind))
        return space

    def known(self, name: str) -> tuple[bytes, bytes]:
        """The namespace's state and version as this process last saw them."""
        found = self._known.get(name)
        return UNSEEN if found is None else found[:2]

    def forget(self, name: str) -> None:
        self._known.pop(name, None)

    def begin(
        self,
        name: str,
        work: Callable[[Namespace], T],
        on: tuple[bytes, bytes],
        *,
        after: Attempt[Any] | None = None,
        anew: bool = False,
        riding: Sequence[object] = (),
    ) -> Attempt[T]:
        """``work`` done on the namespace as it was in ``on`` (its state and version;
        ``anew``: decoded from the state, not the namespace this process last wrote; ``after``
        the try that missed before it), and the script call that writes it if that is still
        the namespace's version (with it, the journal's times ``riding`` along: escaped name,
        seq, times each)."""
        state, version = on
        space = self._space(name, on, anew=anew)
        outbox = space.feed = Outbox()  # its announcements: sent with the change
        exchange = current_exchange.get()
        journaled = len(exchange.entries) if exchange is not None else 0
        value, failure = _done(work, space)
        now = self.codec.encode_state(space)
        mine = self.client.new_version()
        misses, since = (after.misses + 1, after.since) if after is not None else (0, 0.0)
        entries = [[entry.seq, encode_entry(entry)] for entry in journal_of(space).added]
        changes = [c for of in KINDS.values() for c in shelf_of(getattr(space, of.shelf)).changes()]
        said = outbox.said
        lease = self.client.origin if misses >= LEASE_AFTER else ""  # (the lease's token)
        args = [len(riding) // 3, *riding, escape(name), version, mine, lease, *self.limits]
        args += [LEASE_MS, b"" if now == state else now, *_counted(entries)]
        args += [*_counted(changes), *_counted(said)]
        shelved = bool(changes)
        return Attempt(space, now, mine, args, shelved, value, failure, journaled, misses, since)

    def _space(self, name: str, on: tuple[bytes, bytes], *, anew: bool) -> Namespace:
        """The namespace in ``on``: as this process wrote it, if it did (decoding the state
        again would make the same values), taken so that no two changes share it, its journal
        and objects seen anew; else decoded."""
        found = None if anew else self._known.get(name)
        if found is not None and found[1] == on[1] and found[2] is not None:
            self._known[name] = (*found[:2], None)
            return self.seen_anew(found[2])
        return self.space(name, on[0] or None, fresh=not on[0])

    def settle(self, attempt: Attempt[Any], got: list[Any]) -> bool:
        """Is the attempt written (the script's answer is ``got``)? If not, it holds what to
        make the change on again (the API's 503 once leases kept it ``WAIT`` seconds)."""
        space = attempt.space
        if got[0] != 1:
            exchange = current_exchange.get()
            if exchange is not None:  # made again: what this attempt journaled is not
                del exchange.entries[attempt.journaled :]
            attempt.known = (got[1], got[2])
            if got[3]:  # another process holds the lease: a moment's wait first
                attempt.since = attempt.since or time.monotonic()
                if time.monotonic() > attempt.since + WAIT:
                    why = f"namespace {space.name!r} stayed held elsewhere"
                    raise unavailable(self.client.url, why)
                attempt.pause = min(0.0005 * 2 ** (attempt.misses + 1), 0.02)
            return False
        _, numbers, evicted = got
        for entry, number in zip(journal_of(space).added, numbers, strict=True):
            entry.number = int(number)
        known = self._known
        known.pop(space.name, None)
        known[space.name] = (attempt.state, attempt.version, space)
        while len(known) > max(self.limits[0], 1):
            known.popitem(last=False)
        for gone in (unescape(gone.decode()) for gone in evicted):
            self.forget(gone)
            self.feed.publish("reset", gone)
        assert isinstance(space.feed, Outbox)  # (``begin`` gave it one)
        for kind, seq in space.feed.said:
            self.feed.publish(kind, space.name, seq)
        return True


def _done(
    work: Callable[[Namespace], T], space: Namespace
) -> tuple[T | None, BaseException | None]:
    """What ``work`` returned or raised (what it changed stands, as in memory: raised once
    the change is written)."""
    try:
        return work(space), None
    except BaseException as exc:
        return None, exc


def _counted(items: Sequence[Sequence[object]]) -> list[object]:
    """``items`` as the script reads them: their count, then each one's values."""
    return [len(items), *(value for item in items for value in item)]
