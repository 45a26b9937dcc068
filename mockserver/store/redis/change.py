"""How a namespace on Redis changes: one compare-and-set protocol.

A change is made on the namespace's state as this process last saw it, in its version V, and
one script call (``change`` in ``scripts.lua``) writes it — state, journal entries,
stored-object changes, announcements — if the namespace is still in V and nobody else holds
its lease. If another process wrote it in between, the call answers with the state and the
version as they are now, and the change is made again on those: a retry costs one round trip
(a turn is a function of the namespace and the request: made again, it is what it would have
been). A namespace this process has not seen is tried as a new one (version ``''``).

Retries are bounded: the ``LEASE_AFTER``-th miss in a row also takes the namespace's lease for
``LEASE_MS``, so that this process's next try cannot miss (but for a reset). A process that
meets another's lease waits a moment and tries again; past ``WAIT`` it answers the API's 503.
The version a change writes is named in advance (``RedisClient.new_version``), so the next
change can be made on it before it is written: the awaited turns of ``pipe.py`` do, with the
same :meth:`Changes.begin` and :meth:`Changes.settle` as :meth:`Changes.transact`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mockserver.store.feed import Feed
from mockserver.store.model import Exchange, Namespace, current_exchange
from mockserver.store.redis.client import RedisClient, escape, unavailable, unescape
from mockserver.store.redis.codec import encode_entry
from mockserver.store.redis.space import JournalView, Outbox, Reads, shelf_of
from mockserver.store.stored import KINDS
from mockserver.values import value_class

__all__ = ["LEASE_AFTER", "Attempt", "Changes", "Missed"]

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
    to settle once Redis answers."""

    space: Namespace
    #: The namespace's state after the change, and the version it is written as.
    state: bytes
    version: bytes
    args: list[object]
    #: Does the change write stored objects (a change made on it would read them as they were)?
    shelved: bool
    value: T | None
    failure: BaseException | None
    exchange: Exchange | None
    journaled: int
    #: The try before it, which missed.
    after: Missed | None


@value_class
class Missed:
    """A change not written: the namespace's state and version to make it on again, the
    misses in a row, since when leases held it (0: none did), and the seconds to wait first."""

    known: tuple[bytes, bytes]
    misses: int
    since: float
    pause: float


class Changes:
    """The protocol (see the module's docstring), and the states this process last saw.
    ``limits`` are the bounds the script keeps (``Store``'s docstring): namespaces, journal
    entries and bytes, stored objects and bytes."""

    def __init__(
        self,
        client: RedisClient,
        reads: Reads,
        feed: Feed,
        *,
        limits: tuple[int, int, int, int, int],
        riding: Callable[[], list[object]] = list,
    ) -> None:
        self.client, self.reads, self.feed = client, reads, feed
        self.namespaces = limits[0]
        #: What every change sends alike: the limits, the lease's.
        self._fixed = (*limits, LEASE_MS)
        #: Journal times that ride along with the next change (the completer's).
        self.riding = riding
        #: Per namespace, its state and version as this process last wrote or read them, and
        #: the namespace it wrote (made on again as it is; the least recently used leave).
        self._known: OrderedDict[str, tuple[bytes, bytes, Namespace | None]] = OrderedDict()

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` done on the namespace ``name`` as one change, waiting on Redis's answers."""
        after: Missed | None = None
        while True:
            on = after.known if after is not None else self.known(name)
            attempt = self.begin(name, work, on, after=after)
            outcome = self.settle(attempt, self.client.run("change", *attempt.args))
            if not isinstance(outcome, Missed):
                return outcome
            after = outcome
            if after.pause:
                time.sleep(after.pause)

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
        after: Missed | None = None,
        anew: bool = False,
    ) -> Attempt[T]:
        """``work`` done on the namespace as it was in ``on`` (its state and version;
        ``anew``: decoded from the state, not the namespace this process last wrote; ``after``
        the try that missed before it), and the script call that writes it if that is still
        the namespace's version."""
        state, version = on
        found = None if anew else self._known.get(name)
        if found is not None and found[1] == version and found[2] is not None:
            # as this process wrote it (decoding the state again would make the same values):
            # taken, so that no two changes share it; its journal and objects seen anew
            self._known[name] = (*found[:2], None)
            space = self.reads.seen_anew(found[2])
        else:
            space = self.reads.space(name, state or None, fresh=not state)
        outbox = space.feed = Outbox()
        journal = space.journal
        assert isinstance(journal, JournalView)
        exchange = current_exchange.get()
        journaled = len(exchange.entries) if exchange is not None else 0
        failure: BaseException | None = None
        value: T | None = None
        try:
            value = work(space)
        except BaseException as exc:  # what it changed stands, as in memory; raised once written
            failure = exc
        now = self.reads.codec.encode_state(space)
        riding = self.riding()
        mine, origin = self.client.new_version(), self.client.origin
        entries = [[entry.seq, encode_entry(entry)] for entry in journal.added]
        shelves = [shelf_of(getattr(space, of.shelf)) for of in KINDS.values()]
        changes = [change for shelf in shelves for change in shelf.changes()]
        args: list[object] = [
            len(riding) // 3,
            *riding,
            escape(name),
            version,
            mine,
            origin if after is not None and after.misses >= LEASE_AFTER else "",  # (the lease's)
            *self._fixed,
            b"" if now == state else now,
            *_counted(entries),
            *_counted(changes),
            *_counted(outbox.sent),
        ]
        shelved = bool(changes)
        return Attempt(space, now, mine, args, shelved, value, failure, exchange, journaled, after)

    def settle(self, attempt: Attempt[T], got: list[Any]) -> T | Missed:
        """The attempt settled by the script's answer ``got``: its value if written (its
        failure raised), else what to make it on again."""
        space = attempt.space
        name, journal, outbox = space.name, space.journal, space.feed
        assert isinstance(journal, JournalView)
        assert isinstance(outbox, Outbox)
        if got[0] != 1:
            if attempt.exchange is not None:  # made again: what this attempt journaled is not
                del attempt.exchange.entries[attempt.journaled :]
            return self._missed(name, attempt.after, (got[1], got[2]), leased=bool(got[3]))
        _, numbers, evicted = got
        for entry, number in zip(journal.added, numbers, strict=True):
            entry.number = int(number)
        known = self._known
        known.pop(name, None)
        known[name] = (attempt.state, attempt.version, space)
        while len(known) > max(self.namespaces, 1):
            known.popitem(last=False)
        for gone in evicted:
            gone_name = unescape(gone.decode())
            self.forget(gone_name)
            self.feed.publish("reset", gone_name)
        for kind, seq in outbox.sent:
            self.feed.publish(kind, name, seq)
        if attempt.failure is not None:
            raise attempt.failure
        return attempt.value  # type: ignore[return-value]  # work returned it: a T

    def _missed(
        self, name: str, after: Missed | None, known: tuple[bytes, bytes], *, leased: bool
    ) -> Missed:
        """A try not written: made again on ``known`` at once, or in a moment while another
        process holds the lease (the API's 503 once leases kept it ``WAIT`` seconds)."""
        misses, since = (after.misses + 1, after.since) if after else (1, 0.0)
        pause = 0.0
        if leased:
            since = since or time.monotonic()
            if time.monotonic() > since + WAIT:
                raise unavailable(self.client.url, f"namespace {name!r} stayed held elsewhere")
            pause = min(0.0005 * 2**misses, 0.02)
        return Missed(known, misses, since, pause)


def _counted(items: Sequence[Sequence[object]]) -> list[object]:
    """``items`` as the script reads them: their count, then each one's values."""
    return [len(items), *(value for item in items for value in item)]
