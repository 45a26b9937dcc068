"""The objects a namespace stores, one kind a class (:data:`KINDS`), and how it keeps them: a
:class:`Shelf` per kind, in memory a :class:`Kept` that counts the bytes they hold."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Reversible
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mockserver.values import Json, value_class

if TYPE_CHECKING:
    from mockserver.render.responses import ResponseMeta
    from mockserver.reply.model import Reply

__all__ = [
    "KINDS",
    "Kept",
    "Shelf",
    "StoredChatCompletion",
    "StoredConversation",
    "StoredKind",
    "StoredMessageBatch",
    "StoredPromptCache",
    "StoredResponse",
]

T = TypeVar("T")
V = TypeVar("V", covariant=True)


class Kept(OrderedDict[str, T]):
    """Stored objects of one kind, oldest first, and the bytes they hold (each object's
    ``size``, kept right however they leave: evicted, deleted, replaced)."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes = 0

    # (``_size`` spelt out in the three that a replayed response's store runs)
    def __setitem__(self, key: str, value: T) -> None:
        old = self.get(key)
        if old is not None:
            self.bytes -= getattr(old, "size", 0)
        super().__setitem__(key, value)
        self.bytes += getattr(value, "size", 0)

    def __delitem__(self, key: str) -> None:
        self.bytes -= _size(self[key])
        super().__delitem__(key)

    def popitem(self, last: bool = True) -> tuple[str, T]:
        key, value = super().popitem(last)
        self.bytes -= getattr(value, "size", 0)
        return key, value

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return default[0] if default else super().pop(key)

    def clear(self) -> None:
        super().clear()
        self.bytes = 0


def _size(kept: Any) -> int:
    size: int = getattr(kept, "size", 0)
    return size


class Shelf(Protocol[V]):
    """The stored objects of one kind in a namespace, by id, oldest first: an ``OrderedDict``
    in memory; a view that fetches what is read (and writes back what changed) on Redis, so a
    transaction loads only the objects it touches. Put new ones with the store's ``put``
    (they are bounded); change one by reading it and changing it in the held namespace."""

    def get(self, key: str, /) -> V | None: ...
    def __getitem__(self, key: str, /) -> V: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __delitem__(self, key: str, /) -> None: ...
    def __len__(self) -> int: ...
    def values(self) -> Reversible[V]:
        """Every object, oldest first (on Redis: all of them are fetched)."""
        ...


@dataclass(slots=True)
class StoredChatCompletion:
    body: Json
    messages: list[Json]
    metadata: dict[str, str]
    #: About the bytes it holds (its request's, parsed; see ``Journaled.size``).
    size: int = 0


@dataclass(slots=True)
class StoredResponse:
    """A Responses API object: its reply, how to render it, and the conversation it ends."""

    meta: ResponseMeta
    reply: Reply
    #: queued → in_progress → completed/incomplete, or cancelled (background responses);
    #: failed (a stream cut by a scripted error).
    status: str
    #: ``(input_items, context)``, or how to build them (on first read: a load test stores
    #: many responses that nobody reads).
    items: tuple[list[Json], list[Json]] | Callable[[], tuple[list[Json], list[Json]]]
    background: bool = False
    completed_at: int | None = None
    #: A background response that left ``queued`` (where a cancelled one's stream stops).
    started: bool = False
    #: Why it failed (``status`` ``failed``: its stream was cut by a scripted error).
    error: Json | None = None
    #: About the bytes it holds (its request's, parsed; see ``Journaled.size``).
    size: int = 0
    #: The Response object as an upstream sent it (an exact replay's): retrieved as it is.
    recorded: Json | None = None
    #: When (the namespace's clock) it is forgotten (``Settings.background_retention``).
    expires_at: float | None = None

    @property
    def id(self) -> str:
        return self.meta.id

    def expired(self, now: float | None) -> bool:
        """Forgotten by ``now`` (the namespace's clock): past its retention, if it has one."""
        return self.expires_at is not None and now is not None and now >= self.expires_at

    def _built(self) -> tuple[list[Json], list[Json]]:
        if callable(self.items):
            self.items = self.items()
        return self.items

    @property
    def input_items(self) -> list[Json]:
        """This request's input items, in their stored form (``input_items``)."""
        return self._built()[0]

    @property
    def context(self) -> list[Json]:
        """History + input + output: what a response continuing this one sees."""
        return self._built()[1]


@dataclass(slots=True)
class StoredConversation:
    id: str
    created_at: int
    metadata: dict[str, str]
    items: OrderedDict[str, Json] = field(default_factory=OrderedDict)


@dataclass(slots=True)
class StoredMessageBatch:
    """An Anthropic Message Batch: its requests' answers, decided when it was created, and the
    times (the namespace's clock) that say how far its processing has got when it is looked at
    (``engine/message_batches.py``)."""

    id: str
    created_at: float
    #: Seconds its processing takes, its requests finishing evenly over them.
    seconds: float
    #: Each request's ``custom_id``, in the order sent.
    custom_ids: list[str]
    #: Each request's result once processed (``{type: succeeded, message}`` or
    #: ``{type: errored, error}``), in the same order.
    results: list[Json]
    #: Where its results file is served (the server's root as the creating request named it).
    root: str
    cancel_initiated_at: float | None = None
    #: About the bytes it holds (its requests' answers, encoded).
    size: int = 0


@dataclass(slots=True)
class StoredPromptCache:
    """A namespace's prompt cache: the digests of the prompt prefixes written to it, and when
    (its clock) each is forgotten (``engine/prompt_cache.py``). One per namespace."""

    id: str
    entries: dict[str, float] = field(default_factory=dict)


@value_class
class StoredKind:
    """One kind of stored object: the namespace's shelf that keeps them (an attribute of
    :class:`Namespace`), how one is named there, and whether its bytes are bounded too
    (``store_bytes``; every kind is bounded in number, ``store_limit``)."""

    shelf: str
    key: Callable[[Any], str]
    kind: type
    weighed: bool = True


#: Every kind of stored object, by the name a backend keeps it under (``Store.put``'s kind).
KINDS: dict[str, StoredKind] = {
    "chat": StoredKind("chat_completions", lambda s: s.body["id"], StoredChatCompletion),
    "responses": StoredKind("responses", lambda s: s.id, StoredResponse),
    "conversations": StoredKind("conversations", lambda s: s.id, StoredConversation, weighed=False),
    "message_batches": StoredKind("message_batches", lambda s: s.id, StoredMessageBatch),
    "prompt_cache": StoredKind("prompt_cache", lambda s: s.id, StoredPromptCache, weighed=False),
}
