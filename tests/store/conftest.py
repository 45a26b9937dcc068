"""The Store's behaviour tests run against every backend: ``store`` is one of each."""

from __future__ import annotations

import pytest

from mockserver.store import MemoryStore, Store


@pytest.fixture(params=["memory"])
def store(request: pytest.FixtureRequest) -> Store:
    assert request.param == "memory"
    return MemoryStore(journal_limit=10, store_limit=10, namespace_limit=10)
