"""What the Redis backend writes, as JSON (orjson), and back: a namespace's state, its journal
entries and its stored objects.

Every value is data: decoding one runs no code of the value's choosing, and one that does not
decode as this layout's (``client.LAYOUT``) raises :class:`Unreadable`, which the store answers
as the API's 503 naming the key. Dataclasses are written field by field and read back by their
fields' types (pydantic's lax validation), so a field added with a default needs nothing here,
and one this release does not know is ignored. What is not data has a form that is: a scenario
goes by name (a loaded or built-in one, which every process has) or by its YAML (an uploaded
one: stored once, parsed once per process); a one-off reply as its JSON; a request or an answer
kept unparsed as its text and its parser's name; a reply's lazily scored tokens as what scores
them.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from typing import Any, Literal

import orjson

from mockserver.errors import ScenarioError
from mockserver.render import sse
from mockserver.reply.logprobs import ScoredTokens
from mockserver.reply.model import Token
from mockserver.store.model import JournalEntry, Namespace, Unparsed
from mockserver.store.stored import KINDS, StoredResponse

__all__ = [
    "ScenarioCodec",
    "Unreadable",
    "decode_entry",
    "decode_stored",
    "encode_entry",
    "encode_stored",
]

#: Scenarios kept per process by their digest (each one is parsed once).
SCENARIO_CACHE = 64
#: How a request or an answer kept unparsed is parsed, by the name written with it (another
#: parser's value is written parsed).
PARSERS: dict[str, Callable[[bytes], Any]] = {"json": orjson.loads, "sse": sse.decode_stream}
_PARSER_NAMES = {parse: name for name, parse in PARSERS.items()}


class Unreadable(ValueError):
    """A value in Redis that is not this layout's (garbage, another program's, another
    release's): nothing of it is used."""


def _plain(value: Any) -> Any:
    """What orjson does not write by itself, as JSON values."""
    if isinstance(value, ScoredTokens):  # scored when read: written as what scores them
        return value.recipe()
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, bytes):  # (a request or an answer another parser made bytes of)
        return value.decode(errors="replace")
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, deque):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not written to Redis")


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=_plain)


def _loads(blob: bytes) -> Any:
    try:
        return orjson.loads(blob)
    except orjson.JSONDecodeError:
        raise Unreadable("not JSON") from None


@functools.cache
def _validator(kind: Any) -> Callable[[Any], Any]:
    from pydantic import TypeAdapter  # (a server may start without it: once, when needed)

    # pydantic looks these names up here: fields name them, and their modules import
    # them for type checkers only.
    from mockserver.render.responses import ResponseMeta  # noqa: F401
    from mockserver.reply.model import Reply  # noqa: F401
    from mockserver.values import Json  # noqa: F401

    return TypeAdapter(kind).validate_python


def _read(kind: Any, value: Any) -> Any:
    """JSON values read as a ``kind`` (a dataclass, or a type hint) by pydantic's (lax)
    validation; :class:`Unreadable` if they are not one."""
    try:
        return _validator(kind)(value)
    except ValueError as exc:
        from pydantic import ValidationError

        if not isinstance(exc, ValidationError):
            raise
        error = exc.errors()[0]
        where = ".".join(map(str, error["loc"])) or "the value"
        raise Unreadable(f"{where}: {error['msg']}") from None


_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(JournalEntry))
#: A journal entry's times, as ``RedisStore.complete`` writes them.
_TIMES = tuple[float, list[float] | None, bool]
#: What a journal entry keeps unparsed, and as what (its parser's name, ``:base64`` if not text).
_KEPT = dict[Literal["request", "response"], str]


def encode_entry(entry: JournalEntry) -> bytes:
    """A journal entry, field by field; a request or an answer kept unparsed as its text and
    its parser's name (under ``kept``; an answer kept as what remakes it is made now: another
    process cannot run this one's recipe)."""
    values = {name: getattr(entry, name) for name in _ENTRY_FIELDS}
    kept: dict[str, str] = {}
    for name in ("request", "response"):
        value = values[name]
        if not isinstance(value, Unparsed):
            continue
        raw = value.raw if isinstance(value.raw, bytes) else value.raw()
        parser = _PARSER_NAMES.get(value.parse)
        if parser is None:  # a parser another process may not have: the value itself
            values[name] = value.parse(raw)
            continue
        try:
            values[name], kept[name] = raw.decode(), parser
        except UnicodeDecodeError:
            values[name], kept[name] = base64.b64encode(raw).decode(), parser + ":base64"
    return _dumps({**values, "kept": kept} if kept else values)


def decode_entry(
    blob: bytes, times: bytes | None = None, number: bytes | None = None
) -> JournalEntry:
    """A journal entry as written, with its times (once sent) and its server-wide call number
    (``scripts.lua`` keeps both beside it)."""
    value = _loads(blob)
    entry: JournalEntry = _read(JournalEntry, value)
    for name, how in _read(_KEPT, value.get("kept", {})).items():
        parser, _, encoding = how.partition(":")
        text = getattr(entry, name)
        if parser not in PARSERS or type(text) is not str:
            raise Unreadable(f"a journal entry's {name} kept as {how!r}")
        raw = base64.b64decode(text, validate=True) if encoding == "base64" else text.encode()
        setattr(entry, name, Unparsed(raw, PARSERS[parser]))
    if number is not None:
        entry.number = int(number)
    if times is not None:
        entry.duration_ms, entry.timing, entry.cut = _read(_TIMES, _loads(times))
    return entry


@dataclasses.dataclass(slots=True)
class _Scored:
    """A reply's tokens as ``ScoredTokens.recipe`` writes them."""

    texts: tuple[str, ...]
    seed: int
    top_k: int


def encode_stored(stored: Any) -> bytes:
    """A stored object, field by field (a stored response's items built first: until read,
    they are a closure)."""
    if isinstance(stored, StoredResponse):
        stored.items = stored._built()
    return _dumps(stored)


def decode_stored(kind: str, blob: bytes) -> Any:
    value = _loads(blob)
    reply = value.get("reply") if isinstance(value, dict) else None
    written = reply.pop("tokens", ()) if isinstance(reply, dict) else ()
    stored = _read(KINDS[kind].kind, value)
    if written:  # a reply's tokens, or what scores them
        tokens = _read(tuple[Token, ...] | _Scored, written)
        if isinstance(tokens, _Scored):
            tokens = ScoredTokens(tokens.texts, seed=tokens.seed, top_k=tokens.top_k)
        stored.reply = dataclasses.replace(stored.reply, tokens=tokens)
    return stored


@dataclasses.dataclass(slots=True)
class _State:
    """A namespace's state as written: its scenario by :meth:`ScenarioCodec.token`, its
    one-off replies as their JSON, its budgets as ``Budgets.as_json`` writes them; the rest
    as the namespace holds it."""

    counter: int
    journal_seq: int
    rule_hits: dict[str, dict[str, int]]
    scenario: tuple[str, str] | None
    pending: list[Any]
    clock_offset: float
    budgets: tuple[tuple[int, float, float], tuple[int, float, float], bool] | None
    seed: int | None
    incarnation: int


_AS_HELD = ("counter", "journal_seq", "rule_hits", "clock_offset", "seed", "incarnation")


class ScenarioCodec:
    """A namespace's state, and in it its scenario and one-off replies, in a form every process
    reads back. ``find`` is the engine's lookup by name (its loaded scenarios, then the
    built-in ones); ``fetch`` and ``keep`` read and write an uploaded scenario's YAML by
    digest."""

    def __init__(
        self, *, fetch: Callable[[str], bytes | None], keep: Callable[[str, bytes], None]
    ) -> None:
        self.find: Callable[[str], Any] = lambda name: None
        self._fetch, self._keep = fetch, keep
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
            _remember(self._by_digest, digest, scenario)
            token = ("yaml", digest)
        _remember(self._tokens, id(scenario), (scenario, token))
        return token

    def scenario(self, token: tuple[str, str] | None) -> Any:
        if token is None:
            return None
        kind, value = token
        try:
            if kind == "name":
                from mockserver.scenario.library import builtin

                return self.find(value) or builtin(value)
            known = self._by_digest.get(value)
            if known is None:
                from mockserver.scenario.loader import parse_scenario

                text = self._fetch(value)
                if text is None:
                    return None  # forgotten (its Redis was flushed): the server's default
                known = parse_scenario(text.decode(), source=f"<scenario {value}>", confined=True)
                _remember(self._by_digest, value, known)
            return known
        except (ScenarioError, ValueError) as exc:  # a name or a YAML no scenario has
            raise Unreadable(f"its scenario {value!r:.60}: {exc}") from None

    def encode_state(self, space: Namespace) -> bytes:
        budgets = space.budgets  # (a tuple: as read, not taken up by the engine)
        state = _State(
            **{name: getattr(space, name) for name in _AS_HELD},
            scenario=self.token(space.scenario),
            pending=[
                reply.model_dump(mode="json", by_alias=True, exclude_unset=True)
                for reply in space.pending
            ],
            budgets=budgets if budgets is None or isinstance(budgets, tuple) else budgets.as_json(),
        )
        return _dumps(state)

    def decode_state(self, blob: bytes, space: Namespace) -> None:
        """Fill ``space`` from ``blob`` (a change made on a state another process wrote
        decodes it: this is on a request's path)."""
        state: _State = _read(_State, _loads(blob))
        for name in _AS_HELD:
            setattr(space, name, getattr(state, name))
        space.budgets, space.scenario = state.budgets, self.scenario(state.scenario)
        if state.pending:
            from mockserver.scenario.loader import reply_from_data

            try:
                space.pending = deque(reply_from_data(data) for data in state.pending)
            except (ScenarioError, ValueError) as exc:
                raise Unreadable(f"a one-off reply: {exc}") from None


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    """``value`` kept as the most recent of ``SCENARIO_CACHE``."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > SCENARIO_CACHE:
        cache.popitem(last=False)
