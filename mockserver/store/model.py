"""What the store holds: a namespace's state and its journal entries (the objects it stores
are ``stored.py``'s). Plain values: every backend stores these."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from mockserver.store.feed import Announcer
from mockserver.store.stored import (
    Kept,
    Shelf,
    StoredChatCompletion,
    StoredConversation,
    StoredMessageBatch,
    StoredPromptCache,
    StoredResponse,
)
from mockserver.values import Json, value_class

__all__ = [
    "Exchange",
    "Journal",
    "JournalEntry",
    "Namespace",
    "Unparsed",
    "current_exchange",
]


class Journal(Protocol):
    """A namespace's journal, oldest first: a bounded ``deque`` in memory; on Redis a view
    that fetches the entries only when they are read (a turn only appends)."""

    def append(self, entry: JournalEntry, /) -> None: ...
    def __iter__(self) -> Iterator[JournalEntry]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> JournalEntry: ...


@value_class
class Unparsed:
    """An answer kept as the bytes that were sent, parsed only when the journal is read (a
    replayed stream's events are many objects to build, and to free, per request); or kept
    as a function that makes those bytes again (a replayed answer: its recipe and the few
    values it filled in, rather than a thousand bytes per journal entry)."""

    raw: bytes | Callable[[], bytes]
    parse: Callable[[bytes], Any]

    def value(self) -> Any:
        raw = self.raw
        return self.parse(raw if isinstance(raw, bytes) else raw())


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
    #: For streamed answers: when each write left the server (ms since the request arrived).
    timing: list[float] | None = None
    #: For streamed answers: the stream ended before its last write (a scripted disconnect,
    #: or the client left), so only ``len(timing)`` writes reached the socket.
    cut: bool = False
    #: The server-wide call number (``seq`` counts per namespace; 0: journaled without a feed).
    number: int = 0
    #: The bytes this entry counts towards its namespace's journal bound (once complete).
    size: int = 0
    #: The request's headers (lower-case names), a credential's value masked: a JSON object.
    request_headers: dict[str, str] = field(default_factory=dict)
    #: The headers the answer set itself (request id, rate limits, ``retry-after``…; not its
    #: framing's, content type and length, nor the server's, date): a JSON object. Read only
    #: (it may be the dict the answer was sent with).
    response_headers: dict[str, str] = field(default_factory=dict)
    #: An error answer's code in mockserver's own words (OpenAI's ``code``, whatever the
    #: family's body says): ``scenario_reply_invalid`` tells the scenario's fault from the
    #: request's in every family.
    code: str | None = None

    def answer(self) -> Any:
        """The response body (or a stream's payloads) as JSON values."""
        return self.response.value() if isinstance(self.response, Unparsed) else self.response

    def requested(self) -> Any:
        """The request body as JSON values (kept as the bytes sent: parsed when read)."""
        return self.request.value() if isinstance(self.request, Unparsed) else self.request

    def weigh(self) -> int:
        """The bytes of its request and answer as kept (what the journal's bound counts)."""
        return _weight(self.request) + _weight(self.response)

    def as_json(self) -> Json:
        """Every field, the answer parsed (what the control API shows)."""
        return {
            "seq": self.seq,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "api": self.api,
            "model": self.model,
            "stream": self.stream,
            "request": self.requested(),
            "response": self.answer(),
            "rule": self.rule,
            "miss": self.miss,
            "summary": self.summary,
            "duration_ms": self.duration_ms,
            "timing": self.timing,
            "cut": self.cut,
            "number": self.number,
            "request_headers": self.request_headers,
            "response_headers": self.response_headers,
            "code": self.code,
        }


def _weight(kept: Any) -> int:
    """Roughly what ``kept`` (a request or an answer, as an entry keeps it) holds in bytes:
    exactly for bytes; a remade answer is a few values; a parsed body, its bytes were unknown
    (only small bodies are kept parsed: an error's, a hand-made entry's)."""
    if isinstance(kept, Unparsed):
        return len(kept.raw) if isinstance(kept.raw, bytes) else 256
    return 0 if kept is None else 512


@dataclass(slots=True)
class Exchange:
    """The HTTP exchange served in the current context, and what it journaled (the HTTP layer
    times the exchange and completes those entries once the answer has been sent)."""

    entries: list[tuple[str, JournalEntry]] = field(default_factory=list)

    def stamp(self, *, duration_ms: float, timing: list[float] | None, cut: bool) -> None:
        """Its entries stamped with how long it took (a stream's also with when each write left,
        and whether it was ``cut`` before its last)."""
        for _, entry in self.entries:
            entry.duration_ms = duration_ms
            if timing is not None and entry.stream:
                entry.timing = timing
            entry.cut = cut and entry.stream


#: Set by the HTTP layer around each request: a context variable, so per task, never shared.
current_exchange: ContextVar[Exchange | None] = ContextVar("mockserver_exchange", default=None)


@dataclass(slots=True)
class Namespace:
    name: str
    journal: Journal
    counter: int = 0
    journal_seq: int = 0
    chat_completions: Shelf[StoredChatCompletion] = field(default_factory=Kept)
    #: Rule hit counts per scenario name (switching scenarios starts them afresh).
    rule_hits: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The scenario this namespace was switched to (``None``: the server's default).
    scenario: Any = None
    #: One-off replies (scenario ``Reply`` objects) served to the next requests, before any rule.
    pending: deque[Any] = field(default_factory=deque)
    #: Seconds this namespace's clock runs ahead (``POST /__mockserver/clock``).
    clock_offset: float = 0.0
    #: Rate-limit buckets (``ratelimit.Budgets``), made on first use; a shared store reads
    #: them back in their JSON form (``Budgets.as_json``), which the engine takes up.
    budgets: Any = None
    #: A seed for this namespace only (``None``: the scenario's, else the server's).
    seed: int | None = None
    #: Stored Responses API objects (their types live with the Responses family).
    responses: Shelf[StoredResponse] = field(default_factory=Kept)
    conversations: Shelf[StoredConversation] = field(default_factory=Kept)
    #: Anthropic's Message Batches.
    message_batches: Shelf[StoredMessageBatch] = field(default_factory=Kept)
    #: The prompt cache's one object (see ``StoredPromptCache``).
    prompt_cache: Shelf[StoredPromptCache] = field(default_factory=Kept)
    #: Where new journal entries are announced (the store's feed).
    feed: Announcer | None = field(default=None, repr=False)
    #: Which namespace of this name it is (a reset or evicted one comes back as a new one).
    incarnation: int = 0
    #: The bytes its complete journal entries hold (``JournalEntry.size``), and the most they
    #: may (the oldest entries leave first past it).
    journal_bytes: int = 0
    journal_byte_limit: int = 64 * 1024 * 1024

    def next_counter(self) -> int:
        """A per-namespace sequence number, for ids that must differ between identical requests."""
        self.counter += 1
        return self.counter

    def hits_of(self, scenario: str) -> dict[str, int]:
        return self.rule_hits.setdefault(scenario, {})

    def record(self, entry: JournalEntry, *, announce: bool = True) -> None:
        """Journal ``entry``; announce it now unless whoever records it announces it once it
        is complete (an answer sent in the same step as it was journaled)."""
        self.journal_seq += 1
        entry.seq = self.journal_seq
        if self.feed is not None:
            entry.number = self.feed.next_call()
        journal = self.journal
        if isinstance(journal, deque) and len(journal) == journal.maxlen:  # the oldest leaves
            self.journal_bytes -= journal[0].size
        journal.append(entry)
        exchange = current_exchange.get()
        if exchange is not None:
            exchange.entries.append((self.name, entry))
        if announce and self.feed is not None:
            self.feed.publish("entry", self.name, entry.seq)

    def announce(self, kind: Literal["state"] = "state") -> None:
        """Tell every live view that the namespace changed (with the change, on a shared
        store: only if it is written)."""
        if self.feed is not None:
            self.feed.publish(kind, self.name)

    def weigh(self, entry: JournalEntry) -> None:
        """Count a complete ``entry`` towards the journal's bound in bytes, and let the oldest
        entries go while past it (never the newest: one big request is still journaled)."""
        journal = self.journal
        if not isinstance(journal, deque):  # bounded by its backend (in entries)
            return
        if entry.size or not journal or entry.seq < journal[0].seq:  # counted, or gone
            return
        entry.size = entry.weigh()
        self.journal_bytes += entry.size
        while self.journal_bytes > self.journal_byte_limit and len(journal) > 1:
            self.journal_bytes -= journal.popleft().size

    def entry(self, seq: int) -> JournalEntry | None:
        """The journal entry numbered ``seq``, unless it has left the journal."""
        if not self.journal or not self.journal[0].seq <= seq <= self.journal[-1].seq:
            return None
        found = self.journal[seq - self.journal[0].seq]
        return found if found.seq == seq else None
