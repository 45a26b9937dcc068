"""What the Redis backend writes: a namespace's state, its journal entries and stored objects
as bytes, and back.

Pickle, for values only mockserver writes and reads (every process sharing a Redis runs this
code): the Redis a server uses must be one only it, and whoever runs it, can write to. What
cannot be pickled, or must not be, has a serialized form: a scenario goes by name (a loaded or
built-in one, which every process has) or by its YAML (an uploaded one: stored once, parsed
once per process); a one-off reply as its JSON; a journal answer as the bytes that were sent;
a stored response's items are built before they are written.

A journal entry, written with every request, is pickled as a tuple of its fields: a dataclass
with slots pickles through ``dataclasses``' Python ``__getstate__``, five times the time for
more bytes (the rate-limit buckets in the state say how they pickle themselves, for the same
reason). An entry as an older version wrote it (the dataclass itself) still reads back.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any

from mockserver.store.model import JournalEntry, Namespace, StoredResponse, Unparsed

__all__ = ["ScenarioCodec", "decode_entry", "encode_entry", "escape", "unescape"]

#: Scenarios kept per process by their digest (each one is parsed once).
SCENARIO_CACHE = 64


def escape(name: str) -> str:
    """A namespace's name as its keys spell it (no ``:``: one name's keys never meet
    another's)."""
    return name.replace("%", "%25").replace(":", "%3A")


def unescape(name: str) -> str:
    return name.replace("%3A", ":").replace("%25", "%")


#: A journal entry's fields, in order (its tuple, as written).
_ENTRY_FIELDS = tuple(field.name for field in fields(JournalEntry))
_entry_values = attrgetter(*_ENTRY_FIELDS)
#: Where the request and the answer are in that tuple.
_REQUEST, _RESPONSE = _ENTRY_FIELDS.index("request"), _ENTRY_FIELDS.index("response")


def encode_entry(entry: JournalEntry) -> bytes:
    """A journal entry, its answer as the bytes that were sent (an answer kept as what remakes
    it is made now: another process cannot run this one's recipe). Written as the tuple of its
    fields after a number saying which of the request and the answer were kept unparsed (as
    their bytes and how to parse them)."""
    values = list(_entry_values(entry))
    unparsed = 0
    for bit, at in ((1, _REQUEST), (2, _RESPONSE)):
        kept = values[at]
        if isinstance(kept, Unparsed):
            raw = kept.raw
            values[at] = (raw if isinstance(raw, bytes) else raw(), kept.parse)
            unparsed |= bit
    return pickle.dumps((unparsed, *values), protocol=pickle.HIGHEST_PROTOCOL)


def decode_entry(blob: bytes) -> JournalEntry:
    written = pickle.loads(blob)
    if isinstance(written, JournalEntry):  # as an older version wrote it
        return written
    unparsed, *values = written
    for bit, at in ((1, _REQUEST), (2, _RESPONSE)):
        if unparsed & bit:
            values[at] = Unparsed(*values[at])
    return JournalEntry(*values)


def encode_stored(stored: object) -> bytes:
    """A stored object (a stored response's items built first: they are a closure)."""
    if isinstance(stored, StoredResponse) and callable(stored.items):
        stored.items = stored.items()
    return pickle.dumps(stored, protocol=pickle.HIGHEST_PROTOCOL)


def decode_stored(blob: bytes) -> Any:
    return pickle.loads(blob)


class ScenarioCodec:
    """A namespace's scenario and one-off replies in a form every process reads back.

    ``find`` is the engine's lookup by name (its loaded scenarios, then the built-in ones);
    ``fetch`` and ``keep`` read and write an uploaded scenario's YAML by digest."""

    def __init__(
        self,
        *,
        fetch: Callable[[str], bytes | None],
        keep: Callable[[str, bytes], None],
    ) -> None:
        self.find: Callable[[str], Any] = lambda name: None
        self._fetch = fetch
        self._keep = keep
        self._by_digest: OrderedDict[str, Any] = OrderedDict()
        #: id(scenario) → (scenario, token): a scenario is dumped once per process.
        self._tokens: OrderedDict[int, tuple[Any, tuple[str, str]]] = OrderedDict()

    def token(self, scenario: Any) -> tuple[str, str] | None:
        if scenario is None:
            return None
        known = self._tokens.get(id(scenario))
        if known is not None and known[0] is scenario:
            return known[1]
        if self.find(scenario.name) is scenario:
            token = ("name", scenario.name)
        else:
            from mockserver.scenario.loader import scenario_to_yaml

            text = scenario_to_yaml(scenario).encode()
            digest = hashlib.blake2b(text, digest_size=16).hexdigest()
            self._keep(digest, text)
            self._remember(digest, scenario)
            token = ("yaml", digest)
        self._tokens[id(scenario)] = (scenario, token)
        if len(self._tokens) > SCENARIO_CACHE:
            self._tokens.popitem(last=False)
        return token

    def scenario(self, token: tuple[str, str] | None) -> Any:
        if token is None:
            return None
        kind, value = token
        if kind == "name":
            found = self.find(value)
            if found is not None:
                return found
            from mockserver.scenario.library import builtin

            return builtin(value)
        known = self._by_digest.get(value)
        if known is None:
            from mockserver.scenario.loader import parse_scenario

            text = self._fetch(value)
            if text is None:
                return None  # forgotten (its Redis was flushed): the server's default
            known = parse_scenario(text.decode(), source=f"<scenario {value}>", confined=True)
            self._remember(value, known)
        return known

    def _remember(self, digest: str, scenario: Any) -> None:
        self._by_digest[digest] = scenario
        self._by_digest.move_to_end(digest)
        if len(self._by_digest) > SCENARIO_CACHE:
            self._by_digest.popitem(last=False)

    def encode_state(self, space: Namespace) -> bytes:
        state = (
            space.counter,
            space.journal_seq,
            space.rule_hits,
            self.token(space.scenario),
            [_reply_json(reply) for reply in space.pending],
            space.clock_offset,
            space.budgets,
            space.seed,
            space.incarnation,
        )
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def decode_state(self, blob: bytes, space: Namespace) -> None:
        """Fill ``space`` from ``blob``."""
        (
            space.counter,
            space.journal_seq,
            space.rule_hits,
            token,
            pending,
            space.clock_offset,
            space.budgets,
            space.seed,
            space.incarnation,
        ) = pickle.loads(blob)
        space.scenario = self.scenario(token)
        if pending:
            from mockserver.scenario.loader import reply_from_data

            space.pending = deque(reply_from_data(data) for data in pending)


def _reply_json(reply: Any) -> Any:
    return reply.model_dump(mode="json", by_alias=True, exclude_unset=True)
