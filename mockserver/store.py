"""All mutable state, partitioned by namespace, behind one lock.

A namespace is what isolates one test (or one client) from another: its counters, its journal
and its stored objects. Nothing here decides anything about rules or replies.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from mockserver.errors import InvalidRequestError

if TYPE_CHECKING:
    from mockserver.render.responses import ResponseMeta
    from mockserver.reply.model import Reply

__all__ = [
    "JournalEntry",
    "Namespace",
    "Page",
    "Store",
    "StoredChatCompletion",
    "StoredConversation",
    "StoredResponse",
    "paginate",
]

T = TypeVar("T")
Json = dict[str, Any]


@dataclass(slots=True)
class StoredChatCompletion:
    body: Json
    messages: list[Json]
    metadata: dict[str, str]


@dataclass(slots=True)
class StoredResponse:
    """A Responses API object: its reply, how to render it, and the conversation it ends."""

    meta: ResponseMeta
    reply: Reply
    #: queued → in_progress → completed/incomplete, or cancelled (background responses).
    status: str
    #: This request's input items, in their stored form (``input_items``).
    input_items: list[Json]
    #: History + input + output: what a response continuing this one sees.
    context: list[Json]
    background: bool = False
    completed_at: int | None = None

    @property
    def id(self) -> str:
        return self.meta.id


@dataclass(slots=True)
class StoredConversation:
    id: str
    created_at: int
    metadata: dict[str, str]
    items: OrderedDict[str, Json] = field(default_factory=OrderedDict)


@dataclass(slots=True)
class JournalEntry:
    """One request as the server saw and answered it."""

    seq: int
    method: str
    path: str
    status: int
    api: str | None = None
    model: str | None = None
    stream: bool = False
    request: Any = None
    response: Any = None
    rule: str | None = None
    miss: str | None = None
    summary: str = ""
    duration_ms: float = 0.0


@dataclass(slots=True)
class Namespace:
    name: str
    journal: deque[JournalEntry]
    counter: int = 0
    journal_seq: int = 0
    chat_completions: OrderedDict[str, StoredChatCompletion] = field(default_factory=OrderedDict)
    #: Rule hit counts per scenario name (switching scenarios starts them afresh).
    rule_hits: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The scenario this namespace was switched to (``None``: the server's default).
    scenario: Any = None
    #: One-off replies (scenario ``Reply`` objects) served to the next requests, before any rule.
    pending: deque[Any] = field(default_factory=deque)
    #: A seed for this namespace only (``None``: the scenario's, else the server's).
    seed: int | None = None
    #: Stored Responses API objects (their types live with the Responses family).
    responses: OrderedDict[str, StoredResponse] = field(default_factory=OrderedDict)
    conversations: OrderedDict[str, StoredConversation] = field(default_factory=OrderedDict)

    def next_counter(self) -> int:
        """A per-namespace sequence number, for ids that must differ between identical requests."""
        self.counter += 1
        return self.counter

    def hits_of(self, scenario: str) -> dict[str, int]:
        return self.rule_hits.setdefault(scenario, {})

    def record(self, entry: JournalEntry) -> None:
        self.journal_seq += 1
        entry.seq = self.journal_seq
        self.journal.append(entry)


class Store:
    def __init__(self, *, journal_limit: int = 1000, store_limit: int = 10_000) -> None:
        self._lock = threading.RLock()
        self._namespaces: dict[str, Namespace] = {}
        self.journal_limit = journal_limit
        self.store_limit = store_limit

    @contextmanager
    def namespace(self, name: str) -> Iterator[Namespace]:
        """The namespace called ``name`` (created on first use), held under the store's lock."""
        with self._lock:
            space = self._namespaces.get(name)
            if space is None:
                space = Namespace(name=name, journal=deque(maxlen=self.journal_limit))
                self._namespaces[name] = space
            yield space

    def names(self) -> list[str]:
        with self._lock:
            return list(self._namespaces)

    def reset(self, name: str) -> None:
        with self._lock:
            self._namespaces.pop(name, None)

    def put_chat_completion(self, space: Namespace, stored: StoredChatCompletion) -> None:
        space.chat_completions[stored.body["id"]] = stored
        while len(space.chat_completions) > self.store_limit:
            space.chat_completions.popitem(last=False)

    def put_response(self, space: Namespace, stored: StoredResponse) -> None:
        space.responses[stored.id] = stored
        while len(space.responses) > self.store_limit:
            space.responses.popitem(last=False)

    def put_conversation(self, space: Namespace, stored: StoredConversation) -> None:
        space.conversations[stored.id] = stored
        while len(space.conversations) > self.store_limit:
            space.conversations.popitem(last=False)


@dataclass(frozen=True, slots=True)
class Page:
    data: list[Json]
    has_more: bool

    def body(self) -> Json:
        return {
            "object": "list",
            "data": self.data,
            "first_id": self.data[0]["id"] if self.data else None,
            "last_id": self.data[-1]["id"] if self.data else None,
            "has_more": self.has_more,
        }


def paginate(
    items: Sequence[T],
    *,
    key: Callable[[T], str],
    render: Callable[[T], Json],
    after: str | None,
    limit: int,
    order: Literal["asc", "desc"],
) -> Page:
    """OpenAI cursor pagination over ``items`` (given oldest first)."""
    ordered = list(items) if order == "asc" else list(reversed(items))
    start = 0
    if after is not None:
        ids = [key(item) for item in ordered]
        if after not in ids:
            raise InvalidRequestError(
                f"Invalid 'after': no object with id '{after}' in this list.",
                param="after",
                code="invalid_value",
            )
        start = ids.index(after) + 1
    window = ordered[start : start + limit]
    return Page(data=[render(item) for item in window], has_more=start + limit < len(ordered))
