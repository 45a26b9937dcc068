"""How a process talks to one Redis: this thread's own connection, the keys' names, the script
(``scripts.lua``: loaded at start, its calls sent packed), the start-up checks, and each call
one step whose failure is mapped once — a lost or silent Redis, or one that refuses the mock's
calls, is the API's 503, and for ``BREAK`` seconds every call fails at once rather than each
waiting out a timeout. It knows no values: the backend's other parts depend on this narrow
client."""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any, TypeVar

import redis
from hiredis import pack_command
from redis.backoff import NoBackoff
from redis.retry import Retry

from mockserver.errors import ServiceUnavailableError, SettingsError
from mockserver.settings import shown_state_url

__all__ = [
    "FEED_SIZE",
    "LAYOUT",
    "SCRIPT",
    "TIMEOUT",
    "RedisClient",
    "StateUnavailableError",
    "escape",
    "unavailable",
    "unescape",
]

T = TypeVar("T")
log = logging.getLogger("mockserver")

#: The layout of the keys (``scripts.lua`` lists them) and values (``codec.py``), stamped on a
#: prefix. 1: releases that did not stamp theirs; 2: values pickled.
LAYOUT = "3"
SCRIPT = "scripts.lua"
#: Each Redis call's socket timeout (seconds): a lost Redis is a 503 this soon, not a hang.
TIMEOUT = 1.0
#: How long after losing Redis every step fails at once, before one tries again.
BREAK = 0.5
#: Changes kept in the shared feed (what a live view that connects late can catch up on).
FEED_SIZE = 10_000
LOST = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError)
_FAILED = (*LOST, redis.ResponseError)  # what a step maps (``RedisClient.failed``)
#: Error answers of a Redis that answers but will not take the mock's calls, by their first
#: word, and what the 503 says of them. Any other error answer is the mock's own bug: a logged
#: 500. The pipe's answers keep the word; redis-py's classes drop it (:data:`_WORDS`).
_REFUSALS = {
    "OOM": "out of memory: its maxmemory is reached and it evicts none of the mock's keys; give "
    "it more memory, or lower the mock's bounds (docs/scaling.md)",
    "READONLY": "this Redis is a read-only replica (a failover?); give the URL of its primary: "
    "the mock writes on every request",
    "MISCONF": "it refuses writes while it cannot save its snapshot to disk (see its log)",
    "NOPERM": "this user may no longer run the mock's calls",
    "BUSY": "busy running another client's script",
    "MASTERDOWN": "a replica that lost its primary",
}
_WORDS: dict[type[Exception], str] = {
    redis.exceptions.OutOfMemoryError: "OOM",
    redis.exceptions.ReadOnlyError: "READONLY",
    redis.exceptions.NoPermissionError: "NOPERM",
    redis.exceptions.MasterDownError: "MASTERDOWN",
}
#: What the start-up check says of a Redis that fails each of its steps: answering, taking
#: the script, stamping the prefix with this release's layout.
_FAILED_START = (
    "Redis does not answer ({}); start it, or serve without --state (the memory backend: one "
    "process)",
    "Redis does not run mockserver's scripts ({}); it needs Lua scripting (EVALSHA, SCRIPT LOAD) "
    "allowed for this user",
    "Redis refused the mock's first write, its prefix's layout stamp ({}); the mock writes on "
    "every request",
)


class StateUnavailableError(ServiceUnavailableError):
    """Redis is unreachable, too slow, or holds what it cannot read: the API's overload."""

    default_code = "server_is_overloaded"


def unavailable(url: str, why: object) -> StateUnavailableError:
    return StateUnavailableError(
        f"The server's state backend (Redis at {url}) is unavailable ({why}). "
        "Please retry your request after a brief delay.",
        headers={"retry-after": "1"},
    )


def escape(name: str) -> str:
    """A namespace's name as its keys spell it (no ``:``: one name's keys never meet
    another's)."""
    return name.replace("%", "%25").replace(":", "%3A")


def unescape(name: str) -> str:
    return name.replace("%3A", ":").replace("%25", "%")


def _refusal(exc: Exception) -> str | None:
    """Why Redis refuses the mock's calls, if ``exc`` is one of :data:`_REFUSALS`."""
    word = next((word for kind, word in _WORDS.items() if isinstance(exc, kind)), None)
    return _REFUSALS.get(word or str(exc).split(" ", 1)[0])


def redis_client(url: str, *, timeout: float) -> Any:
    """A client of ``url`` that never sends a call twice (a change sent again after a lost
    answer could be written twice)."""
    try:
        return redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )
    except ValueError as exc:
        raise SettingsError(f"--state {shown_state_url(url)}: {exc}", setting="state") from None


class RedisClient:
    """The calls to the Redis at ``url`` (see the module's docstring), keys under ``prefix``."""

    def __init__(self, url: str, *, prefix: str, timeout: float = TIMEOUT) -> None:
        #: The URL as messages and logs show it (its password masked); :attr:`target` connects.
        self.url, self.target = shown_state_url(url), url
        self.prefix, self.timeout = prefix, timeout
        #: Typed loosely: redis-py's replies are typed for every decoding at once.
        self._pooled: Any = redis_client(url, timeout=timeout)
        self._local = threading.local()  # per thread (and process), its own connection
        source = resources.files(__package__).joinpath(SCRIPT).read_text(encoding="utf-8")
        #: The script's source, and its SHA1 (what ``EVALSHA`` names it by).
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()
        self._token, self._origin_pid, self._origin = secrets.token_hex(8), 0, ""
        self._versions = itertools.count(1)
        #: Until when (monotonic) a lost Redis is not asked again, and why it was lost.
        self._down_until, self._down_why = 0.0, ""
        self._unreadable: set[str] = set()
        self._step = _Step(self)

    @property
    def redis(self) -> Any:
        """This thread's client, its connection kept (taking one from the pool and giving it
        back on every call costs a request more than the call); made anew in a forked worker."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.client = redis.Redis(
                connection_pool=self._pooled.connection_pool, single_connection_client=True
            )
            local.pid = os.getpid()
        return local.client

    @property
    def origin(self) -> str:
        """Names this process's changes on the feed and the versions it writes (a worker
        forked from it is another process)."""
        pid = os.getpid()
        if self._origin_pid != pid:
            self._origin_pid, self._origin = pid, f"{self._token}-{pid}"
        return self._origin

    def new_version(self) -> bytes:
        """A version no other written state has (this process's origin and a count), named in
        advance: the next change can be made on it before it is written."""
        return f"{self.origin}.{next(self._versions)}".encode()

    def key(self, name: str, suffix: str) -> str:
        """The key of the namespace ``name``'s ``suffix`` (``state``, ``journal``…)."""
        return f"{self.prefix}:ns:{escape(name)}:{suffix}"

    def step(self) -> _Step:
        """One call to Redis, waited for or awaited (``with client.step():``): a lost Redis
        becomes the API's 503, and for ``BREAK`` seconds every step fails at once (then one
        tries again)."""
        return self._step

    def call(self, step: Callable[[Any], T]) -> T:
        """Run one Redis step on this thread's client (a :meth:`step`)."""
        with self.step():
            return step(self.redis)

    def command(self, call: str, args: Iterable[object]) -> tuple[object, ...]:
        """The ``EVALSHA`` of one call of ``scripts.lua``: ``ARGV`` the prefix, ``call``, this
        process's origin, the feed's length, then ``args``."""
        return ("EVALSHA", self.sha, 0, self.prefix, call, self.origin, FEED_SIZE, *args)

    def run(self, call: str, *args: object) -> Any:
        """One :meth:`command`, packed, on this thread's connection (the client's command path
        costs a call more than the round trip's own work); the script, if Redis does not know
        it (restarted, flushed), loaded and sent again."""
        source = self.source
        command = [pack_command(self.command(call, args))]  # type: ignore[arg-type]

        def send(client: Any) -> Any:
            connection = client.connection
            try:
                try:
                    connection.send_packed_command(command, check_health=False)
                    return connection.read_response()
                except redis.exceptions.NoScriptError:
                    client.script_load(source)
                    connection.send_packed_command(command, check_health=False)
                    return connection.read_response()
            except (redis.ConnectionError, redis.TimeoutError):
                connection.disconnect()  # an answer may be on its way: never read as the next
                raise

        return self.call(send)

    def failed(self, exc: Exception) -> Exception:
        """What a call that failed with ``exc`` raises: the API's 503 for a lost Redis or one
        that refuses the mock's calls (``_REFUSALS``); any other error answer, itself."""
        why = type(exc).__name__ if isinstance(exc, LOST) else _refusal(exc)
        if why is None:
            return exc
        if not self._down_until:
            log.warning(
                "mockserver: lost the state backend (Redis at %s: %s); answering 503 until it "
                "is back (journal entries completed meanwhile keep no answer or timing)",
                self.url,
                why,
            )
        self._down_until, self._down_why = time.monotonic() + BREAK, why
        return unavailable(self.url, why)

    def decoded(self, key: str, decode: Callable[[], T]) -> T:
        """``decode()`` of the value at ``key``; one that is not this layout's is the API's 503
        (logged once per key and process), never a value used."""
        try:
            return decode()
        except (ValueError, TypeError, KeyError) as why:  # Unreadable, or worse
            if key not in self._unreadable:
                self._unreadable.add(key)
                log.error(
                    "mockserver: unreadable value at %s in the Redis at %s: %s", key, self.url, why
                )
            said = f"the value at {key} is not one mockserver wrote: {why}"
            raise unavailable(self.url, said) from None

    def check(self) -> None:
        """Fail at start-up, saying where it looked, unless Redis answers, takes the script
        (else its first call would be refused, then sent again) and the prefix holds this
        release's layout (an unused one is stamped with it); warn of a Redis that may evict
        the mock's keys."""
        source, sha = self.source, self.sha
        steps: tuple[Callable[[], Any], ...] = (
            lambda: self.redis.ping(),  # (a new client connects when made)
            lambda: self.redis.script_load(source),
            lambda: self.redis.evalsha(sha, 0, self.prefix, "layout", LAYOUT),
        )
        for step, why in zip(steps, _FAILED_START, strict=True):
            try:
                have = step()
            except redis.AuthenticationError as exc:  # it answered: a login, not a start, is due
                raise SettingsError(
                    f"--state {self.url}: Redis refused the login ({exc}); give its password "
                    "in the URL (redis://:PASSWORD@HOST:PORT/DB, or redis://USER:PASSWORD@… for "
                    "an ACL user; MOCKSERVER_STATE_URL keeps it off the command line)",
                    setting="state_url",
                ) from None
            except (redis.RedisError, OSError) as exc:  # the first write: refused as at run time?
                refused = _refusal(exc) if step is steps[-1] else None
                said = f"{refused} (Redis said: {exc})" if refused else why.format(exc)
                raise SettingsError(f"--state {self.url}: {said}", setting="state_url") from None
        have = have.decode() if isinstance(have, bytes) else str(have)
        if have != LAYOUT:
            raise SettingsError(
                f"--state {self.url}: the keys under the prefix {self.prefix!r} were written "
                f"by another mockserver release (key layout {have}; this one writes layout "
                f"{LAYOUT}): serve with another --state-prefix, or delete those keys "
                f"(redis-cli -u {self.url} --scan --pattern '{self.prefix}:*' "
                f"| xargs redis-cli -u {self.url} del)",
                setting="state_prefix",
            )
        self._warn_of_eviction()

    def _warn_of_eviction(self) -> None:
        """A Redis that may evict any key would drop parts of a namespace unseen (the mock's
        keys have no expiry: noeviction and volatile-* never drop them); one that hides its
        configuration (a managed one, often) is taken as it is."""
        try:
            config = self.redis.config_get("maxmemory*")  # (redis-py decodes its answer)
        except (redis.RedisError, OSError):
            return
        policy = config.get("maxmemory-policy", "")
        if policy.startswith("allkeys-") and int(config.get("maxmemory", 0)) > 0:
            log.warning(
                "mockserver: the Redis at %s evicts any key when it reaches its maxmemory "
                "(maxmemory-policy %s): under memory pressure it would drop parts of the "
                "mock's namespaces. Give the mock a Redis with maxmemory-policy noeviction, "
                "or more memory (the bounds in docs/scaling.md say how much it can hold).",
                self.url,
                policy,
            )

    def close(self) -> None:
        self._pooled.connection_pool.disconnect()
        self._pooled.close()


class _Step:
    """:meth:`RedisClient.step`'s guard (a class: a generator's context costs each request
    a few microseconds more)."""

    __slots__ = ("client",)

    def __init__(self, client: RedisClient) -> None:
        self.client = client

    def __enter__(self) -> None:
        client = self.client
        if client._down_until and time.monotonic() < client._down_until:
            raise unavailable(client.url, client._down_why)

    def __exit__(self, kind: object, exc: BaseException | None, _: object) -> None:
        client = self.client
        if isinstance(exc, _FAILED):
            raise client.failed(exc) from None
        if exc is None and client._down_until:  # it had been lost: it is back
            client._down_until = 0.0
            log.warning("mockserver: the state backend (Redis at %s) answers again", client.url)
