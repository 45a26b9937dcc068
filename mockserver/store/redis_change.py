"""How a namespace on Redis changes, written by one script either way.

A change to a namespace is one atomic step for every process, in one of two ways:

- **One round trip** (:meth:`RedisStore.transact`, what a request's turn uses): the change is
  made on the namespace's state as this process last wrote or read it, and one Lua call writes
  it (state, journal entries, stored-object changes, announcements) if that state is still
  the namespace's own (its version) and nobody holds it. If another process changed it in
  between, the call answers with the state as it is now and the change is made again on that
  (a turn is a function of the state and the request: made again, it is what it would have
  been); after a few such misses, or for a namespace this process has not seen, the second way.
  The state a change writes is named in advance (:meth:`RedisStore.new_version`), so a
  namespace's next turn can be made on it and sent before it is written
  (:func:`transact_soon`).
- **Locked** (:meth:`RedisStore.namespace`): one Lua call takes the namespace's lock and reads
  its state (counters, rule hits, scenario, one-off queue, clock, budgets: one small value),
  another writes what changed and lets go, or nothing if the lock was lost.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mockserver.store.model import Exchange, Namespace, current_exchange
from mockserver.store.redis_codec import encode_entry, escape, unescape
from mockserver.store.redis_parts import (
    FEED_SIZE,
    JournalView,
    Outbox,
    RedisShelf,
    StateUnavailableError,
)
from mockserver.values import value_class

if TYPE_CHECKING:
    from mockserver.store.redis import RedisStore

__all__ = ["Held", "transact", "transact_soon"]

T = TypeVar("T")

#: How long a process may hold a namespace before another may take it (a process that died
#: holding one lets go this late); and how long a request waits for one.
LOCK_MS = 2000
LOCK_WAIT = 2.5
#: How many times a one-round-trip change is made again on a state another process changed
#: meanwhile, before the namespace is taken locked (which cannot miss).
TRIES = 4


class _Unset:
    """:func:`transact`'s ``known`` when the caller has not learnt the namespace's state."""


_UNSET = _Unset()


def transact(
    store: RedisStore,
    name: str,
    work: Callable[[Namespace], T],
    known: tuple[bytes, bytes] | _Unset | None = _UNSET,
) -> T:
    """``work`` done on the namespace ``name`` as one atomic change, in one round trip
    when the state this process last saw is still the namespace's (see the module's
    docstring); ``work`` may be done more than once, each time on a fresh namespace, and
    only the last one counts (it must change nothing but the namespace). ``known``: the
    state and version to make it on first, if the caller has just learnt them."""
    if isinstance(known, _Unset):
        known = None if name in store.held() else store.known(name)
    for _ in range(TRIES):
        if known is None:
            break
        outcome = _try(store, name, work, *known)
        if not isinstance(outcome, _Missed):
            return outcome
        known = outcome.known
    with store.namespace(name) as space:
        return work(space)


async def transact_soon(store: RedisStore, name: str, work: Callable[[Namespace], T]) -> T:
    """:func:`transact`, awaiting Redis's answers instead of waiting for them: the process goes
    on with other requests meanwhile. A namespace's turns are made in the order they come:
    one made while the one before is on its way to Redis is made on the state that one
    writes, and sent after it (Redis runs a connection's calls in order; if the one before is
    not written, neither is this one, which is then made again). It waits for the one before
    to be settled instead if that one changed stored objects (this turn would read them as
    they were), or is not on its way (it waits in turn), or while another process is lately
    writing the namespace too (``Pipes.contend``). Only the locked way waits on Redis, as
    :func:`transact` does."""
    if name in store.held():
        return transact(store, name, work)
    pipes = store.pipes
    ahead, turn = pipes.queue(name)
    try:
        known: tuple[bytes, bytes] | None = None  # what Redis answered a try that missed
        for _ in range(TRIES):
            before = ahead.attempt if ahead is not None else None
            on: tuple[bytes, bytes] | None
            if before is not None and not before.shelved and not turn.alone:
                on = (before.state, before.version)
            else:
                if ahead is not None:
                    await ahead.done
                    if ahead.missed:  # made again after this turn's try: what it wrote is newer
                        known = None
                    ahead = before = None
                on = known or store.known(name)
                if on is None:  # not seen by this process: the locked way
                    break
            attempt = _begin(store, name, work, *on, anew=before is not None)
            turn.attempt = attempt
            got = await store.run_soon("try", *attempt.args)
            turn.attempt = None
            outcome = _end(store, attempt, got)
            if not isinstance(outcome, _Missed):
                return outcome
            turn.missed = True
            known = outcome.known
            if known is None or not known[1].startswith(store.version_origin):
                pipes.contend(name)  # another process wrote it meanwhile
            if known is None:  # held by another, or gone: the locked way
                break
        return transact(store, name, work, None)
    finally:
        pipes.leave(name, turn)


@dataclass(slots=True)
class _Attempt(Generic[T]):
    """A one-round-trip change made, before Redis has written it: what to send, and what to
    settle once it answers."""

    name: str
    space: Namespace
    #: The namespace's state after the change, and the version it is written as.
    state: bytes
    version: bytes
    args: list[object]
    #: Does the change write stored objects?
    shelved: bool
    value: T | None
    failure: BaseException | None
    exchange: Exchange | None
    journaled: int


def _try(
    store: RedisStore, name: str, work: Callable[[Namespace], T], state: bytes, version: bytes
) -> T | _Missed:
    """One attempt at a one-round-trip change: ``work``'s value, if written."""
    attempt = _begin(store, name, work, state, version)
    return _end(store, attempt, store.run("try", *attempt.args))


def _begin(
    store: RedisStore,
    name: str,
    work: Callable[[Namespace], T],
    state: bytes,
    version: bytes,
    *,
    anew: bool = False,
) -> _Attempt[T]:
    """``work`` done on the namespace as it was in ``version`` (``anew``: decoded from
    ``state``, not the namespace this process last wrote), and the script call that writes
    it if that is still the namespace's version."""
    held = store.held()
    space = (None if anew else reused_space(store, name, version)) or store.new_space(name, state)
    space.feed = Outbox()
    exchange = current_exchange.get()
    journaled = len(exchange.entries) if exchange is not None else 0
    held[name] = [space, 1, None, state]
    failure: BaseException | None = None
    value: T | None = None
    try:
        value = work(space)
    except BaseException as exc:  # what it changed stands, as in memory; raised once written
        failure = exc
    finally:
        del held[name]
    now = store.codec.encode_state(space)
    riding = store.completer.take()
    mine = store.new_version()
    changes, shelved = writes(store, space, now, state)
    args: list[object] = [
        escape(name),
        version,
        mine,
        store.namespace_limit,
        store.origin,
        FEED_SIZE,
        len(riding) // 3,
        *riding,
        *changes,
    ]
    return _Attempt(name, space, now, mine, args, shelved, value, failure, exchange, journaled)


def _end(store: RedisStore, attempt: _Attempt[T], got: list[Any]) -> T | _Missed:
    """The attempt settled by the script's answer ``got``: its value if written, else what
    to make it on again."""
    if got[0] == 1:
        written(store, attempt.space, attempt.state, got[1:3], got[3], reuse=True)
        if attempt.failure is not None:
            raise attempt.failure
        return attempt.value  # type: ignore[return-value]  # work returned it: a T
    exchange = attempt.exchange
    if exchange is not None:  # made again: the entries this attempt journaled are not
        del exchange.entries[attempt.journaled :]
    if len(got) == 1 or not got[2]:  # held by another, or gone: the locked way
        store.forget_known(attempt.name)
        return _Missed(None)
    return _Missed((got[1], got[2]))


def reused_space(store: RedisStore, name: str, version: bytes) -> Namespace | None:
    """The namespace as this process wrote it in ``version``, for a change made on that
    version (decoding the state again would make the same values): taken, so that no
    two changes share it; its journal and stored objects seen anew."""
    found = store.spaces.pop(name, None)
    if found is None or found[0] != version:
        return None
    return store.seen_anew(found[1])


def written(
    store: RedisStore,
    space: Namespace,
    state: bytes,
    done: list[Any],
    evicted: list[Any],
    *,
    reuse: bool = False,
) -> None:
    """After a namespace's change was written: its entries' call numbers, its version (and,
    with ``reuse``, ``space`` kept to make the next change on), and this process's live views
    told of it (and of the namespaces it evicted)."""
    version, numbers = done
    if not isinstance(version, bytes):  # a P:versions number, not a token
        version = str(version).encode()
    journal = space.journal
    assert isinstance(journal, JournalView)
    for entry, number in zip(journal.added, numbers, strict=True):
        entry.number = int(number)
    store.remember(space.name, state, version, space if reuse else None)
    for gone in evicted:
        name = unescape(gone.decode())
        store.forget_known(name)
        store.feed.publish("reset", name)
    outbox = space.feed
    assert isinstance(outbox, Outbox)
    for kind, seq in outbox.sent:
        store.feed.publish(kind, space.name, seq)


def writes(
    store: RedisStore, space: Namespace, state: bytes, snapshot: bytes
) -> tuple[list[object], bool]:
    """What a script's ``write`` takes for the change made to ``space`` (its state now
    ``state``, ``snapshot`` before), and whether it writes stored objects."""
    journal = space.journal
    assert isinstance(journal, JournalView)
    args: list[object] = [
        b"" if state == snapshot else state,
        store.journal_limit,
        store.journal_bytes,
        store.store_limit,
        store.store_bytes,
        store.origin,
        FEED_SIZE,
        len(journal.added),
    ]
    for entry in journal.added:
        args += [entry.seq, encode_entry(entry)]
    changes = [
        change
        for shelf in (space.chat_completions, space.responses, space.conversations)
        for change in shelf_of(shelf).changes()
    ]
    args.append(len(changes))
    for change in changes:
        args += change
    outbox = space.feed
    assert isinstance(outbox, Outbox)
    args.append(len(outbox.sent))
    for kind, seq in outbox.sent:
        args += [kind, seq]
    return args, bool(changes)


@value_class
class _Missed:
    """A one-round-trip change not written: the namespace's state and version to make it on
    again (``None``: take the namespace locked)."""

    known: tuple[bytes, bytes] | None


def shelf_of(shelf: object) -> RedisShelf[Any]:
    assert isinstance(shelf, RedisShelf)  # this backend's namespaces hold RedisShelves
    return shelf


class Held:
    """What :meth:`RedisStore.namespace` returns: the namespace locked and read on enter;
    written and let go on exit (also when the block raises: what it changed stands, as in
    memory). A thread may hold a namespace again inside (only the outermost writes)."""

    __slots__ = ("name", "store")

    def __init__(self, store: RedisStore, name: str) -> None:
        self.store = store
        self.name = name

    def __enter__(self) -> Namespace:
        store, name = self.store, self.name
        held = store.held()
        if name in held:
            held[name][1] += 1
            space: Namespace = held[name][0]
            return space
        token = secrets.token_hex(8)
        if store.orphans:
            store.release_orphans()
        riding = store.completer.take()

        def acquire() -> list[Any] | None:
            nonlocal riding
            try:
                got: list[Any] = store.run(
                    "acquire",
                    escape(name),
                    token,
                    LOCK_MS,
                    store.namespace_limit,
                    store.origin,
                    FEED_SIZE,
                    *riding,
                )
            except StateUnavailableError:
                store.orphaned(name, token)
                raise
            riding = []  # written with the first call, taken or not
            return got if got[0] == 1 else None

        got = store.until_free(name, acquire)
        _, state, fresh, evicted = got
        space = store.new_space(name, state or None, incarnation=int(fresh))
        space.feed = Outbox()
        held[name] = [space, 1, token, state or b""]
        for gone in evicted:
            gone_name = unescape(gone.decode())
            store.forget_known(gone_name)
            store.feed.publish("reset", gone_name)
        return space

    def __exit__(self, *exc: object) -> None:
        store, name = self.store, self.name
        held = store.held()
        record = held[name]
        record[1] -= 1
        if record[1] > 0:
            return
        del held[name]
        space, _, token, snapshot = record
        state = store.codec.encode_state(space)
        try:
            changes, _ = writes(store, space, state, snapshot)
            done = store.run("commit", escape(name), token, *changes)
        except StateUnavailableError:
            store.orphaned(name, token)  # if it never ran, the namespace is still ours
            store.forget_known(name)
            raise
        written(store, space, state, done, [])
