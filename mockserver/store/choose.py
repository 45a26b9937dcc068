"""The backend the settings ask for: memory (the default), or the Redis at ``state_url``."""

from __future__ import annotations

from mockserver.settings import Settings, shown_state_url
from mockserver.store.base import Store
from mockserver.store.memory import MemoryStore

__all__ = ["open_store"]


def open_store(settings: Settings) -> Store:
    """A store with the settings' bounds; a Redis one is checked first (it must answer)."""
    limits: dict[str, int] = {
        "journal_limit": settings.journal_limit,
        "store_limit": settings.store_limit,
        "namespace_limit": settings.namespace_limit,
        "journal_bytes": settings.journal_bytes,
        "store_bytes": settings.store_bytes,
    }
    if settings.state_url is None:
        return MemoryStore(**limits)
    try:
        from mockserver.store.redis import RedisStore
    except ImportError:  # the optional extra is not installed
        from mockserver.errors import SettingsError

        raise SettingsError(
            f"--state {shown_state_url(settings.state_url)} needs the redis package: "
            "pip install 'mockserver[redis]'",
            setting="state_url",
        ) from None
    store = RedisStore(
        settings.state_url,
        prefix=settings.state_prefix,
        journal_limit=settings.journal_limit,
        store_limit=settings.store_limit,
        namespace_limit=settings.namespace_limit,
        journal_bytes=settings.journal_bytes,
        store_bytes=settings.store_bytes,
    )
    store.check()
    return store
