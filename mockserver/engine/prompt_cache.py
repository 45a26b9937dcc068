"""Prompt caching: what a request's cache breakpoints read from and write to its namespace's
prompt cache, as the usage's cache tokens.

A prompt that marks breakpoints (``Prompt.cache_prefixes``) reads the longest prefix a request
before it wrote — at a breakpoint, or at one of the :data:`LOOKBACK` boundaries before one —
and writes the prefix at each breakpoint after that, the tokens between the two counted
against the breakpoint's ttl. A prefix shorter than the model's minimum is not cached. Each
write (and each read, which refreshes it) is kept for its ttl on the namespace's clock, so the
first request with a prefix writes it and those after read it, in every process that shares
the store.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from mockserver.prompt import Prompt
from mockserver.prompt.model import CachePrefix
from mockserver.reply.generate import count_prompt_tokens
from mockserver.reply.model import Reply, Usage
from mockserver.store import Namespace, Store, StoredPromptCache

__all__ = ["LOOKBACK", "cache_minimum", "with_prompt_cache"]

#: How many boundaries before a breakpoint the cache looks back for an earlier write.
LOOKBACK: Final = 20
#: Seconds a write is kept, by its ttl.
_TTL_SECONDS: Final = {"5m": 300.0, "1h": 3600.0}
#: The id of a namespace's one prompt cache.
_CACHE_ID: Final = "prompt_cache"
#: The most prefixes a namespace's cache keeps (the ones forgotten soonest leave first).
_MOST: Final = 4096


def cache_minimum(model: str) -> int:
    """The fewest tokens a prefix must hold to be cached (Haiku's are longer)."""
    return 2048 if "haiku" in model else 1024


def _cache_of(store: Store, space: Namespace) -> StoredPromptCache:
    found = space.prompt_cache.get(_CACHE_ID)
    if found is None:
        found = StoredPromptCache(id=_CACHE_ID)
        store.put(space, "prompt_cache", found)
    return found


def _read_at(prompt: Prompt, alive: dict[str, float], now: float) -> int:
    """The index of the longest prefix the cache holds (-1: none)."""
    prefixes, found = prompt.cache_prefixes, -1
    for index, prefix in enumerate(prefixes):
        if prefix.ttl is None:
            continue
        for back in range(index, max(-1, index - LOOKBACK - 1), -1):
            if alive.get(prefixes[back].digest, 0.0) > now:
                found = max(found, back)
                break
    return found


def _usage(usage: Usage, read: int, written: dict[str, int]) -> Usage:
    total = usage.prompt_tokens
    read = min(read, total)
    write = min(sum(written.values()), total - read)
    return replace(
        usage,
        cached_tokens=read,
        cache_write_tokens=write,
        cache_write_1h_tokens=min(written.get("1h", 0), write),
    )


def with_prompt_cache(
    store: Store, space: Namespace, prompt: Prompt, reply: Reply, *, now: float
) -> Reply:
    """``reply`` with the cache tokens ``prompt``'s breakpoints read and write in ``space``
    (held by the caller), the cache written; ``reply`` as it is if it marks none."""
    prefixes = prompt.cache_prefixes
    if not any(prefix.ttl for prefix in prefixes):
        return reply
    cache = _cache_of(store, space)
    entries = {k: v for k, v in cache.entries.items() if v > now}
    minimum = cache_minimum(prompt.model)
    read_at = _read_at(prompt, entries, now)
    tokens: dict[int, int] = {}

    def size(index: int) -> int:
        if index not in tokens:
            tokens[index] = count_prompt_tokens(prompt.prefix(prefixes[index]))
        return tokens[index]

    read = size(read_at) if read_at >= 0 else 0
    if read_at >= 0:
        _keep(entries, prefixes[read_at], now, ttl=prefixes[read_at].ttl or "5m")
    written: dict[str, int] = {}
    reached = read
    for index in range(read_at + 1, len(prefixes)):
        prefix = prefixes[index]
        if prefix.ttl is None or size(index) < minimum:
            continue
        written[prefix.ttl] = written.get(prefix.ttl, 0) + max(0, size(index) - reached)
        reached = max(reached, size(index))
        _keep(entries, prefix, now, ttl=prefix.ttl)
    if len(entries) > _MOST:
        entries = dict(sorted(entries.items(), key=lambda kv: kv[1])[-_MOST:])
    cache.entries = entries
    return replace(reply, usage=_usage(reply.usage, read, written))


def _keep(entries: dict[str, float], prefix: CachePrefix, now: float, *, ttl: str) -> None:
    until = now + _TTL_SECONDS.get(ttl, _TTL_SECONDS["5m"])
    entries[prefix.digest] = max(entries.get(prefix.digest, 0.0), until)
