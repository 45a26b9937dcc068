"""The Store's behaviour tests run against every backend: ``store`` is one of each (the Redis
one on a real ``redis-server``, with keys of its own per test); ``new_store`` makes more of the
same backend with other limits (on Redis: sharing the keys, as another process would)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mockserver.store import MemoryStore, Store
from tests.support.redis_server import RedisServer
from tests.support.stores import NewStore


@pytest.fixture(params=["memory", "redis"])
def new_store(request: pytest.FixtureRequest) -> Iterator[NewStore]:
    made: list[Store] = []
    prefix = RedisServer.new_prefix()

    def make(**limits: int) -> Store:
        options = {"journal_limit": 10, "store_limit": 10, "namespace_limit": 10, **limits}
        if request.param == "memory":
            return MemoryStore(**options)
        from mockserver.store.redis import RedisStore

        server: RedisServer = request.getfixturevalue("redis_server")
        made.append(RedisStore(server.url, prefix=prefix, **options))
        return made[-1]

    yield make
    for store in made:
        store.close()


@pytest.fixture
def store(new_store: NewStore) -> Store:
    return new_store()
