"""The Redis backend of the Store (``mockserver[redis]``): every namespace in one Redis, shared
by any number of processes and hosts. Its parts, each depending on the narrow client below it:

- ``client``: connections, the scripts (``scripts.lua``), start-up checks, errors → 503;
- ``codec``: state, journal entries and stored objects as JSON, and back;
- ``space``: a namespace as a change or a view sees it (journal and objects fetched on read);
- ``change``: the one change protocol, compare-and-set;
- ``feed``: what every process hears, and the journal's times written in batches;
- ``pipe``: a change's round trip awaited on the event loop;
- ``store``: the :class:`RedisStore` they make.
"""

from mockserver.store.redis.client import StateUnavailableError
from mockserver.store.redis.store import DEFAULT_PREFIX, RedisStore

__all__ = ["DEFAULT_PREFIX", "RedisStore", "StateUnavailableError"]
