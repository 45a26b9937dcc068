"""The Redis backend of the :class:`~mockserver.store.base.Store`: every namespace in one Redis,
shared by any number of ``serve`` processes (workers, hosts), which then act as one server.

A change to a namespace is one atomic step for every process: usually one round trip, written
on the state this process last saw if that state is still current (``redis_change.py`` says
how, and when the namespace is taken under its lock instead).

Either way a ``replies:`` sequence, a ``times:`` count, a queued reply or a budget is spent
exactly once, whichever process serves the request. Stored objects and the journal are not
loaded with the state: a transaction fetches the objects it reads (one round trip each) and
writes back only those it changed. The bounds of the memory backend hold in Redis, kept by the
scripts: namespaces (least recently used leaving), journal entries and their bytes, stored
objects and their bytes.

A request's turn is awaited (:meth:`RedisStore.transact_soon`): made in the protocol's callback
as in memory, its one script call sent on the event loop's pipe to Redis (``redis_pipe.py``),
and the answer written when Redis has written the change; the loop serves other requests
meanwhile, and a namespace's next turn may be made on the change before it is written (so is
a turn made again after another process moved the namespace). Everything else — the locked
way, the control API's changes, reads, the journal's times — is a blocking call on this
thread's own connection of the synchronous client: rare, or off the request's path.

Redis unreachable, or too slow (a socket timeout), is the API's 503 for the request
(``server_is_overloaded``, naming the state backend); nothing is left half written (each
write is one script), and the next request reconnects.
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, TypeVar

import orjson
import redis

from mockserver.errors import SettingsError
from mockserver.store.base import Store
from mockserver.store.model import (
    Exchange,
    JournalEntry,
    Namespace,
    StoredChatCompletion,
    StoredConversation,
    StoredResponse,
)
from mockserver.store.redis_change import LOCK_WAIT, Held, shelf_of, transact, transact_soon
from mockserver.store.redis_codec import (
    ScenarioCodec,
    decode_entry,
    escape,
    unescape,
)
from mockserver.store.redis_parts import (
    FEED_SIZE,
    PACKS,
    Completer,
    JournalView,
    RedisShelf,
    SharedFeed,
    StateUnavailableError,
    evalsha,
    pack_call,
    redis_client,
    timed,
    unavailable,
)
from mockserver.store.redis_pipe import Pipes
from mockserver.store.redis_scripts import (
    ACQUIRE,
    ANNOUNCE,
    COMMIT,
    COMPLETE,
    RELEASE,
    RESET,
    TRY,
)

__all__ = ["DEFAULT_PREFIX", "RedisStore", "StateUnavailableError"]

T = TypeVar("T")
Kind = Literal["entry", "state", "reset"]
log = logging.getLogger("mockserver")

#: Keys start with this unless ``--state-prefix`` says otherwise.
DEFAULT_PREFIX = "mockserver"
#: Each Redis call's socket timeout (seconds): a lost Redis is a 503 this soon, not a hang.
TIMEOUT = 1.0
#: How long after losing Redis every step fails at once, before one tries again.
BREAK = 0.5
_LOST = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError)


class RedisStore(Store):
    """Every namespace in one Redis, under ``prefix``; the bounds of the memory backend, kept
    in Redis (``namespace_limit`` namespaces, least recently used leaving first; per namespace
    ``journal_limit`` entries holding at most ``journal_bytes``, and ``store_limit`` objects of
    each kind, stored completions and responses holding at most ``store_bytes`` each; bytes as
    written to Redis)."""

    waits = True

    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        journal_limit: int = 1000,
        store_limit: int = 10_000,
        namespace_limit: int = 1000,
        journal_bytes: int = 64 * 1024 * 1024,
        store_bytes: int = 256 * 1024 * 1024,
        timeout: float = TIMEOUT,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.journal_limit = journal_limit
        self.store_limit = store_limit
        self.namespace_limit = namespace_limit
        self.journal_bytes = journal_bytes
        self.store_bytes = store_bytes
        #: Typed loosely: redis-py's replies are typed for every decoding at once.
        self.timeout = timeout
        #: Each serving event loop's pipe to Redis, and the namespaces whose turns it awaits.
        self.pipes = Pipes(url, timeout=timeout)
        self._pooled: Any = redis_client(url, timeout=timeout)
        #: Per thread (and process), a client that keeps one connection of the pool.
        self._local = threading.local()
        self._scripts = {
            name: self._pooled.register_script(source)
            for name, source in (
                ("acquire", ACQUIRE),
                ("announce", ANNOUNCE),
                ("commit", COMMIT),
                ("complete", COMPLETE),
                ("reset", RESET),
                ("release", RELEASE),
                ("try", TRY),
            )
        }
        self._origin = secrets.token_hex(8)
        self._versions = itertools.count(1)
        self.codec = ScenarioCodec(fetch=self._fetch_scenario, keep=self._keep_scenario)
        self._held = threading.local()
        #: Per namespace, the state this process last wrote or read and its version: what a
        #: one-round-trip change is made on (the least recently used leave past the limit).
        self._known: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()
        #: Per namespace, the namespace a one-round-trip change last wrote, and its version.
        self.spaces: dict[str, tuple[bytes, Namespace]] = {}
        #: Locks that may be ours though we never heard so (a call that timed out may run
        #: once Redis answers again): let go the next time Redis answers, so the namespace
        #: does not wait out the lock's expiry.
        self.orphans: list[tuple[str, str]] = []
        #: Calls made to Redis (each one round trip; what the benchmarks count).
        self.round_trips = 0
        #: Until when (monotonic) a lost Redis is not asked again, and why it was lost.
        self._down_until = 0.0
        self._down_why = ""
        self.feed: SharedFeed = SharedFeed(self, size=max(journal_limit, 1000))
        self.completer = Completer(self)

    # -- plumbing -------------------------------------------------------------------------

    @property
    def _redis(self) -> Any:
        """This thread's client: a connection of its own, kept (taking one from the pool and
        giving it back, as the pooled client does on every call, costs a request more than the
        call itself); made anew in a forked worker."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.client = redis.Redis(
                connection_pool=self._pooled.connection_pool, single_connection_client=True
            )
            local.pid = os.getpid()
        return local.client

    @property
    def origin(self) -> str:
        """Names this process's changes on the feed (its live views learn them at once); a
        worker forked from it is another process."""
        return f"{self._origin}-{os.getpid()}"

    @property
    def version_origin(self) -> bytes:
        """How the versions :meth:`new_version` makes begin (another process's do not)."""
        return f"{self.origin}.".encode()

    def new_version(self) -> bytes:
        """A version for a namespace's state that no other written state has (this process's
        origin and a count): a change names what it writes in advance, so that the next one
        can be made on it before it is written."""
        return f"{self.origin}.{next(self._versions)}".encode()

    def call(self, step: Callable[[], T]) -> T:
        """Run one Redis step; a lost Redis becomes the API's 503. Once one is lost, every
        step fails at once for ``BREAK`` seconds (then one tries again): each request
        would otherwise wait out a socket timeout, and this process's other connections
        with it."""
        if self._down_until and time.monotonic() < self._down_until:
            raise unavailable(self.url, self._down_why)
        self.round_trips += 1
        try:
            result = step()
        except (*_LOST, redis.ResponseError) as exc:
            raise self._failed(exc) from None
        self._answered()
        return result

    def _failed(self, exc: Exception) -> Exception:
        """What a call that failed with ``exc`` raises: a lost Redis, or a namespace held
        too long, is the API's 503; any other error answer, itself."""
        if isinstance(exc, _LOST):
            self._lost(type(exc).__name__)
            return unavailable(self.url, self._down_why)
        if "MOCKSERVER_LOCK_LOST" in str(exc):
            return unavailable(self.url, "a namespace was held too long")
        return exc

    def _answered(self) -> None:
        """Redis answered: if it had been lost, it is back."""
        if self._down_until:
            self._down_until = 0.0
            log.warning("mockserver: the state backend (Redis at %s) answers again", self.url)

    def _lost(self, why: str) -> None:
        if not self._down_until:
            log.warning(
                "mockserver: lost the state backend (Redis at %s: %s); answering 503 until it "
                "is back (journal entries completed meanwhile keep no answer or timing)",
                self.url,
                why,
            )
        self._down_until = time.monotonic() + BREAK
        self._down_why = why

    def run(self, script: str, *args: object) -> Any:
        client = self._redis
        if not PACKS:
            return self.call(
                lambda: self._scripts[script](args=[self.prefix, *args], client=client)
            )
        registered = self._scripts[script]
        return self.call(lambda: evalsha(client, registered, self.prefix, args))

    async def run_soon(self, script: str, *args: object) -> Any:
        """:meth:`run`, awaited: on this event loop's pipe to Redis (``redis_pipe.py``), so
        the loop serves other requests while Redis runs the script. Without a pipe (a TLS
        URL, or a loop the server did not announce with :meth:`loop_starts`, which then
        could not close it), :meth:`run`, waiting."""
        if not self.pipes.serving():
            return self.run(script, *args)
        if self._down_until and time.monotonic() < self._down_until:
            raise unavailable(self.url, self._down_why)
        registered = self._scripts[script]
        command = pack_call(registered, self.prefix, args)
        self.round_trips += 1
        try:
            pipe = await self.pipes.pipe()
            try:
                got = await pipe.call(command)
            except redis.exceptions.NoScriptError:  # Redis restarted, or its scripts flushed
                self.call(lambda: self._redis.script_load(registered.script))
                got = await pipe.call(command)
        except (*_LOST, redis.ResponseError) as exc:
            raise self._failed(exc) from None
        self._answered()
        return got

    def loop_starts(self) -> None:
        self.pipes.loop_starts()

    def loop_ends(self) -> None:
        self.pipes.loop_ends()

    def orphaned(self, name: str, token: str) -> None:
        self.orphans.append((escape(name), token))

    def release_orphans(self) -> None:
        orphans, self.orphans = self.orphans, []
        args = [part for orphan in orphans for part in orphan]
        try:
            self.run("release", *args)
        except StateUnavailableError:
            self.orphans[:0] = orphans
            raise

    def check(self) -> None:
        """Fail at start-up, with where it looked, unless Redis answers; and load the scripts
        (else the first call of each would be refused, and sent again once loaded)."""

        def load() -> None:
            loading = self._redis.pipeline(transaction=False)
            for script in self._scripts.values():
                loading.script_load(script.script)
            loading.execute()

        for step, why in (
            (
                lambda: self._redis.ping(),  # (a new client connects when made)
                "Redis does not answer ({}); start it, or serve without --state "
                "(the memory backend: one process)",
            ),
            (
                load,
                "Redis does not run mockserver's scripts ({}); it needs Lua scripting "
                "(EVALSHA, SCRIPT LOAD) allowed for this user",
            ),
        ):
            try:
                step()
            except (redis.RedisError, OSError) as exc:
                raise SettingsError(
                    f"--state {self.url}: {why.format(exc)}", setting="state_url"
                ) from None

    def close(self) -> None:
        self.flush()
        self.feed.stop()
        self._pooled.connection_pool.disconnect()
        self._pooled.close()

    def key(self, name: str, suffix: str) -> str:
        return f"{self.prefix}:ns:{escape(name)}:{suffix}"

    def _fetch_scenario(self, digest: str) -> bytes | None:
        found: bytes | None = self.call(lambda: self._redis.get(f"{self.prefix}:scenario:{digest}"))
        return found

    def _keep_scenario(self, digest: str, text: bytes) -> None:
        self.call(lambda: self._redis.set(f"{self.prefix}:scenario:{digest}", text, nx=True))

    def serve_scenarios(self, find: Callable[[str], Any]) -> None:
        self.codec.find = find

    def held(self) -> dict[str, list[Any]]:
        """The namespaces this thread holds: name → [namespace, depth, token, snapshot]
        (token ``None``: held for a one-round-trip change)."""
        table: dict[str, list[Any]] | None = getattr(self._held, "table", None)
        if table is None:
            table = self._held.table = {}
        return table

    def new_space(self, name: str, state: bytes | None, *, incarnation: int = 0) -> Namespace:
        space = Namespace(name=name, journal=JournalView(self, name), incarnation=incarnation)
        if state:
            self.codec.decode_state(state, space)
        return self.seen_anew(space)

    def seen_anew(self, space: Namespace) -> Namespace:
        """``space`` with its journal and stored objects as a new transaction sees them
        (fetched when read, nothing added yet)."""
        name = space.name
        space.journal = journal = JournalView(self, name)
        journal.known = min(space.journal_seq, self.journal_limit)
        space.chat_completions = RedisShelf(self, name, "chat", key=lambda s: s.body["id"])
        space.responses = RedisShelf(self, name, "responses", key=lambda s: s.id)
        space.conversations = RedisShelf(self, name, "conversations", key=lambda s: s.id)
        return space

    def until_free(self, name: str, attempt: Callable[[], T | None]) -> T:
        """``attempt()`` again, backing off, until it is not ``None`` (the namespace was free),
        or the API's 503 once a namespace's lock would have expired."""
        deadline = time.monotonic() + LOCK_WAIT
        wait = 0.0005
        while (got := attempt()) is None:
            if time.monotonic() > deadline:
                raise unavailable(self.url, f"namespace {name!r} stayed held by another process")
            time.sleep(wait)
            wait = min(wait * 2, 0.02)
        return got

    def known(self, name: str) -> tuple[bytes, bytes] | None:
        """The namespace's state (and version) as this process last saw it, if it did."""
        return self._known.get(name)

    def forget_known(self, name: str) -> None:
        self._known.pop(name, None)
        self.spaces.pop(name, None)

    def remember(
        self, name: str, state: bytes, version: bytes, space: Namespace | None = None
    ) -> None:
        """The namespace's state as this process last saw it (what the next change is made
        on), and the namespace it was written from, if it may be made on again as it is."""
        known = self._known
        known.pop(name, None)
        known[name] = (state, version)
        self.spaces.pop(name, None)
        if space is not None:
            self.spaces[name] = (version, space)
        while len(known) > max(self.namespace_limit, 1):
            gone, _ = known.popitem(last=False)
            self.spaces.pop(gone, None)

    # -- primitives -----------------------------------------------------------------------

    def namespace(self, name: str) -> Held:
        return Held(self, name)

    def transact(self, name: str, work: Callable[[Namespace], T]) -> T:
        """``work`` done on the namespace ``name`` as one atomic change, in one round trip
        when the state this process last saw is still the namespace's (see the module's
        docstring); ``work`` may be done more than once, each time on a fresh namespace, and
        only the last one counts (it must change nothing but the namespace)."""
        return transact(self, name, work)

    async def transact_soon(self, name: str, work: Callable[[Namespace], T]) -> T:
        if not PACKS:  # pragma: no cover (the redis extra installs hiredis)
            return transact(self, name, work)
        return await transact_soon(self, name, work)

    @contextmanager
    def view(self, name: str) -> Iterator[Namespace]:
        state = self.call(lambda: self._redis.get(self.key(name, "state")))
        yield self.new_space(name, state)

    @contextmanager
    def peek(self, name: str) -> Iterator[Namespace | None]:
        state = self.call(lambda: self._redis.get(self.key(name, "state")))
        yield None if state is None else self.new_space(name, state)

    def names(self) -> list[str]:
        members = self.call(lambda: self._redis.zrange(f"{self.prefix}:names", 0, -1))
        return [unescape(m.decode()) for m in members]

    def reset(self, name: str) -> None:
        """Forget the namespace once no other process holds it (waiting as a turn would)."""
        mine = self.held().get(name)
        token = mine[2] if mine is not None and mine[2] is not None else ""
        reset = ("reset", escape(name), self.origin, FEED_SIZE, token)
        self.until_free(name, lambda: True if self.run(*reset)[0] == 1 else None)
        self.forget_known(name)
        self.feed.publish("reset", name)

    def announce(self, kind: Kind, name: str, seq: int = 0) -> None:
        self.run("announce", escape(name), self.origin, FEED_SIZE, kind, seq)
        self.feed.publish(kind, name, seq)

    def entry(self, name: str, seq: int) -> JournalEntry | None:
        def three() -> list[Any]:
            with self._redis.pipeline(transaction=False) as pipe:
                for suffix in ("journal", "journal:times", "journal:calls"):
                    pipe.hget(self.key(name, suffix), str(seq))
                replies: list[Any] = pipe.execute()
                return replies

        blob, times, number = self.call(three)
        return None if blob is None else timed(decode_entry(blob), times, number)

    def journal(self, name: str) -> list[JournalEntry]:
        with self.view(name) as space:
            return list(space.journal)

    def complete(
        self,
        exchange: Exchange,
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        self._complete(exchange.entries, duration_ms=duration_ms, timing=timing, cut=cut)

    def complete_one(
        self, name: str, entry: JournalEntry, *, duration_ms: float, timing: list[float] | None
    ) -> None:
        self._complete([(name, entry)], duration_ms=duration_ms, timing=timing)

    def _complete(
        self,
        entries: list[tuple[str, JournalEntry]],
        *,
        duration_ms: float,
        timing: list[float] | None,
        cut: bool = False,
    ) -> None:
        """Stamp the entries (written with their answers when their turn committed) with how
        long they took: announced here at once, written by the completer (off the request's
        path, many in one round trip under load)."""
        for name, entry in entries:
            entry.duration_ms = duration_ms
            if timing is not None and entry.stream:
                entry.timing = timing
            entry.cut = cut and entry.stream
            times = orjson.dumps([duration_ms, entry.timing, entry.cut])
            self.completer.add(escape(name), entry.seq, times)
            self.feed.publish("entry", name, entry.seq)

    def flush(self) -> None:
        """Until every completion made so far is written (or Redis was lost meanwhile)."""
        self.completer.flush()

    def put_chat_completion(self, space: Namespace, stored: StoredChatCompletion) -> None:
        shelf_of(space.chat_completions).put(stored.body["id"], stored)

    def put_response(self, space: Namespace, stored: StoredResponse) -> None:
        shelf_of(space.responses).put(stored.id, stored)

    def put_conversation(self, space: Namespace, stored: StoredConversation) -> None:
        shelf_of(space.conversations).put(stored.id, stored)

    # -- reads of what a namespace keeps apart from its state --------------------------------

    def fetch(self, name: str, kind: str, key: str) -> bytes | None:
        found: bytes | None = self.call(lambda: self._redis.hget(self.key(name, kind), key))
        return found

    def fetch_all(self, name: str, kind: str) -> list[tuple[str, bytes]]:
        """Every stored object of a kind, oldest first (two commands, one round trip)."""

        def both() -> list[Any]:
            with self._redis.pipeline(transaction=True) as pipe:
                pipe.zrange(self.key(name, f"{kind}:order"), 0, -1)
                pipe.hgetall(self.key(name, kind))
                replies: list[Any] = pipe.execute()
                return replies

        order, blobs = self.call(both)
        return [(k.decode(), blobs[k]) for k in order if k in blobs]

    def journal_entries(self, name: str) -> list[JournalEntry]:
        def three() -> list[Any]:
            with self._redis.pipeline(transaction=False) as pipe:
                for suffix in ("journal", "journal:times", "journal:calls"):
                    pipe.hgetall(self.key(name, suffix))
                replies: list[Any] = pipe.execute()
                return replies

        blobs, times, numbers = self.call(three)
        entries = [
            timed(decode_entry(blob), times.get(seq), numbers.get(seq))
            for seq, blob in blobs.items()
        ]
        return sorted(entries, key=lambda e: e.seq)

    def feed_client(self) -> Any:
        """A client of its own for the feed's reader (it blocks on a read)."""
        return redis_client(self.url, timeout=TIMEOUT + 2)
