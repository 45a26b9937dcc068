"""How a process talks to one Redis: this thread's own connection of the synchronous client,
each serving loop's pipe (``redis_pipe.py``), the scripts (loaded at start, sent packed), and
each call one step whose failure is mapped once — a lost or silent Redis is the API's 503, and
for ``BREAK`` seconds every call fails at once, rather than each waiting out a timeout."""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis

from mockserver.errors import SettingsError
from mockserver.settings import shown_state_url
from mockserver.store.redis_parts import PACKS, evalsha, pack_call, redis_client, unavailable
from mockserver.store.redis_pipe import Pipes
from mockserver.store.redis_scripts import (
    ACQUIRE,
    ANNOUNCE,
    COMMIT,
    COMPLETE,
    LAYOUT,
    LAYOUT_VERSION,
    RELEASE,
    RESET,
    TRY,
)

__all__ = ["BREAK", "TIMEOUT", "RedisLink"]

T = TypeVar("T")
log = logging.getLogger("mockserver")

#: Each Redis call's socket timeout (seconds): a lost Redis is a 503 this soon, not a hang.
TIMEOUT = 1.0
#: How long after losing Redis every step fails at once, before one tries again.
BREAK = 0.5
_LOST = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError)
#: Error answers of a Redis that answers but will not take the mock's calls, by their first
#: word (the pipe's answers keep it; redis-py's classes drop it, so those match by class), and
#: what the 503 says of them. Any other error answer is the mock's own bug: a logged 500.
_REFUSALS: tuple[tuple[str, type[Exception] | None, str], ...] = (
    (
        "OOM",
        redis.exceptions.OutOfMemoryError,
        "out of memory: its maxmemory is reached and it evicts none of the mock's keys; give it "
        "more memory, or lower the mock's bounds (docs/scaling.md)",
    ),
    (
        "READONLY",
        redis.exceptions.ReadOnlyError,
        "this Redis is a read-only replica (a failover?); give the URL of its primary: the "
        "mock writes on every request",
    ),
    (
        "MISCONF",
        None,
        "it refuses writes while it cannot save its snapshot to disk (see its log)",
    ),
    ("NOPERM", redis.exceptions.NoPermissionError, "this user may no longer run the mock's calls"),
    ("BUSY", None, "busy running another client's script"),
    ("MASTERDOWN", redis.exceptions.MasterDownError, "a replica that lost its primary"),
)


def _refusal(exc: Exception) -> str | None:
    """Why Redis refuses the mock's calls, if ``exc`` is one of :data:`_REFUSALS`."""
    for word, kind, why in _REFUSALS:
        if (kind is not None and isinstance(exc, kind)) or str(exc).startswith(word + " "):
            return why
    return None


class RedisLink:
    """The calls to the Redis at ``url`` (see the module's docstring), keys under ``prefix``."""

    def __init__(self, url: str, *, prefix: str, timeout: float = TIMEOUT) -> None:
        #: The URL as messages and logs show it (its password masked); :attr:`_url` connects.
        self.url = shown_state_url(url)
        self._url = url
        self.prefix = prefix
        self.timeout = timeout
        #: Each serving event loop's pipe to Redis, and the namespaces whose turns it awaits.
        self.pipes = Pipes(url, timeout=timeout)
        #: Typed loosely: redis-py's replies are typed for every decoding at once.
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
        self._token = secrets.token_hex(8)
        self._origin_pid = 0
        self._origin = ""
        self._versions = itertools.count(1)
        #: Calls made to Redis (each one round trip; what the benchmarks count).
        self.round_trips = 0
        #: Until when (monotonic) a lost Redis is not asked again, and why it was lost.
        self._down_until = 0.0
        self._down_why = ""

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
        """Names this process's changes on the feed (its live views learn them at once) and
        the versions it writes; a worker forked from it is another process."""
        pid = os.getpid()
        if self._origin_pid != pid:
            self._origin_pid, self._origin = pid, f"{self._token}-{pid}"
        return self._origin

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
        """What a call that failed with ``exc`` raises: a lost Redis, one that refuses the
        mock's calls (out of memory, a replica, …: ``_REFUSALS``), or a namespace held too
        long, is the API's 503; any other error answer, itself."""
        if isinstance(exc, _LOST):
            self._lost(type(exc).__name__)
            return unavailable(self.url, self._down_why)
        if (why := _refusal(exc)) is not None:
            self._lost(why)
            return unavailable(self.url, why)
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

    def check(self) -> None:
        """Fail at start-up, with where it looked, unless Redis answers; load the scripts
        (else the first call of each would be refused, and sent again once loaded); and
        refuse a prefix whose keys another release laid out otherwise."""

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
            (
                self._check_layout,
                "Redis refused the mock's first write, its prefix's layout stamp ({}); the mock "
                "writes on every request",
            ),
        ):
            try:
                step()
            except redis.AuthenticationError as exc:  # it answered: a login, not a start, is due
                raise SettingsError(
                    f"--state {self.url}: Redis refused the login ({exc}); give its password "
                    "in the URL (redis://:PASSWORD@HOST:PORT/DB, or redis://USER:PASSWORD@… for "
                    "an ACL user; MOCKSERVER_STATE_URL keeps it off the command line)",
                    setting="state_url",
                ) from None
            except (redis.RedisError, OSError) as exc:
                raise SettingsError(
                    f"--state {self.url}: {why.format(exc)}", setting="state_url"
                ) from None
        self._check_eviction()

    def _check_eviction(self) -> None:
        """Warn, at start, of a Redis that may evict keys on its own: under memory pressure it
        would drop parts of a namespace (its state, journal entries, stored objects), which
        nothing here could tell. The mock's keys have no expiry, so ``noeviction`` and the
        ``volatile-*`` policies never drop them; a Redis that does not let this user read its
        configuration (a managed one, often) is taken as it is."""
        try:
            config = self._redis.config_get("maxmemory*")
        except (redis.RedisError, OSError):
            return
        policy = config.get("maxmemory-policy", "")  # (redis-py decodes CONFIG GET's answer)
        if policy.startswith("allkeys-") and int(config.get("maxmemory", 0)) > 0:
            log.warning(
                "mockserver: the Redis at %s evicts any key when it reaches its maxmemory "
                "(maxmemory-policy %s): under memory pressure it would drop parts of the "
                "mock's namespaces. Give the mock a Redis with maxmemory-policy noeviction, "
                "or more memory (the bounds in docs/scaling.md say how much it can hold).",
                self.url,
                policy,
            )

    def _check_layout(self) -> None:
        """Stamp an unused prefix with this release's key layout; refuse one of another."""
        try:
            have = self._redis.eval(LAYOUT, 0, self.prefix, LAYOUT_VERSION)
        except redis.ResponseError as exc:  # the first write: refused as at run time, say why
            if (refused := _refusal(exc)) is None:
                raise
            raise SettingsError(
                f"--state {self.url}: {refused} (Redis said: {exc})", setting="state_url"
            ) from None
        have = have.decode() if isinstance(have, bytes) else str(have)
        if have != LAYOUT_VERSION:
            raise SettingsError(
                f"--state {self.url}: the keys under the prefix {self.prefix!r} were written "
                f"by another mockserver release (key layout {have}; this one writes layout "
                f"{LAYOUT_VERSION}): serve with another --state-prefix, or delete those keys "
                f"(redis-cli -u {self.url} --scan --pattern '{self.prefix}:*' "
                f"| xargs redis-cli -u {self.url} del)",
                setting="state_prefix",
            )

    def disconnect(self) -> None:
        self._pooled.connection_pool.disconnect()
        self._pooled.close()

    def feed_client(self) -> Any:
        """A client of its own for the feed's reader (it blocks on a read)."""
        return redis_client(self._url, timeout=TIMEOUT + 2)
