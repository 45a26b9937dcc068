"""The Redis backend of the Store (``mockserver[redis]``): every namespace in one Redis, shared
by any number of processes and hosts. Its parts depend on the narrow client (``client``:
connections, keys, the script, start-up checks, errors → 503): ``codec`` (values as JSON),
``views`` (a namespace's journal and stored objects, fetched when read), ``change`` (the one
change protocol), ``pipe`` (a change awaited on the event loop); ``store`` makes the
:class:`RedisStore` of them, with what every process hears and the journal's times.
"""

from mockserver.store.redis.client import StateUnavailableError
from mockserver.store.redis.store import DEFAULT_PREFIX, RedisStore

__all__ = ["DEFAULT_PREFIX", "RedisStore", "StateUnavailableError"]
