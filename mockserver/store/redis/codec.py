"""What the Redis backend writes, as JSON (orjson), and back: a namespace's state, its journal
entries and its stored objects.

Every value is data: decoding one runs no code of the value's choosing. A value that does not
decode as this layout's (``LAYOUT``: the prefix's stamp, checked at start) raises
:class:`Unreadable`, which the store answers as the API's 503 naming the key. What is not data
has a form that is: a scenario goes by name (a loaded or built-in one, which every process
has) or by its YAML (an uploaded one: stored once, parsed once per process); a one-off reply as
its JSON; a request or an answer kept unparsed as its text and the name of its parser; a
reply's lazily scored tokens as what scores them.

Journal entries and stored objects are written field by field from their dataclass and read
back by the fields' types (:func:`structure`), so a field added with a default needs nothing
here: a value written without it reads back with the default, and a field this release does
not know is ignored.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import types
import typing
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args, get_origin

import orjson

from mockserver.errors import ScenarioError
from mockserver.render import sse
from mockserver.render.responses import ResponseMeta
from mockserver.reply.logprobs import ScoredTokens
from mockserver.reply.model import Reply
from mockserver.store.model import JournalEntry, Namespace, Unparsed
from mockserver.store.stored import KINDS, StoredResponse

__all__ = [
    "LAYOUT",
    "ScenarioCodec",
    "Unreadable",
    "decode_entry",
    "decode_stored",
    "encode_entry",
    "encode_stored",
    "escape",
    "unescape",
]

#: The layout of the keys and values (``scripts.lua`` lists the keys). 1: releases that did not
#: stamp theirs; 2: values pickled.
LAYOUT = "3"
#: Scenarios kept per process by their digest (each one is parsed once).
SCENARIO_CACHE = 64
#: How a request or an answer kept unparsed is parsed, by the name written with it (another
#: parser's value is written parsed).
PARSERS: dict[str, Callable[[bytes], Any]] = {"json": orjson.loads, "sse": sse.decode_stream}
_PARSER_NAMES = {parse: name for name, parse in PARSERS.items()}


class Unreadable(ValueError):
    """A value in Redis that is not this layout's (garbage, another program's, another
    release's): nothing of it is used."""


def escape(name: str) -> str:
    """A namespace's name as its keys spell it (no ``:``: one name's keys never meet
    another's)."""
    return name.replace("%", "%25").replace(":", "%3A")


def unescape(name: str) -> str:
    return name.replace("%3A", ":").replace("%25", "%")


# -- writing: every value through orjson, what it cannot write by ``_plain`` ---------------


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


# -- reading: JSON values back into the types the fields declare -------------------------


def structure(kind: Any, value: Any) -> Any:
    """``value`` (JSON) as a value of the type ``kind`` (a dataclass, or a type hint of the
    kinds the store's values use); :class:`Unreadable` if it is not one."""
    return _reader(kind)(value)


@functools.cache
def _reader(hint: Any) -> Callable[[Any], Any]:
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return lambda value: value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_reader(hint)
    if hint in (int, str, bool):
        return functools.partial(_checked, hint)
    if hint is float:
        return _float
    if origin in (types.UnionType, typing.Union):
        return _union_reader(args)
    if origin is Literal:
        return functools.partial(_literal, args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _reader(args[0])
            return lambda value: tuple(item(v) for v in _list(value))
        return _fixed_reader(tuple(_reader(arg) for arg in args))
    if origin is list:
        item = _reader(args[0]) if args else _reader(Any)
        return lambda value: [item(v) for v in _list(value)]
    if origin in (Sequence, typing.Sequence):
        return _sequence_reader(args[0])
    if origin in (frozenset, set):
        item = _reader(args[0])
        return lambda value: frozenset(item(v) for v in _list(value))
    if origin in (dict, Mapping, OrderedDict, typing.Mapping) or hint is dict:
        keep = OrderedDict if origin is OrderedDict else dict
        item = _reader(args[1]) if args else _reader(Any)
        return lambda value: keep((str(k), item(v)) for k, v in _dict(value).items())
    if origin is Callable or hint is type(None):  # never written: only ``None`` reads back
        return functools.partial(_literal, (None,))
    raise TypeError(f"no reader for {hint!r}")


def _dataclass_reader(kind: type) -> Callable[[Any], Any]:
    hints = typing.get_type_hints(kind, localns=_NAMES)
    readers = {f.name: _reader(hints[f.name]) for f in dataclasses.fields(kind) if f.init}

    def read(value: Any) -> Any:
        given = _dict(value)
        fields = {name: read(given[name]) for name, read in readers.items() if name in given}
        try:
            return kind(**fields)
        except TypeError as exc:  # a field it must have is missing
            raise Unreadable(f"not a {kind.__name__}: {exc}") from None

    return read


def _fixed_reader(readers: tuple[Callable[[Any], Any], ...]) -> Callable[[Any], Any]:
    def read(value: Any) -> tuple[Any, ...]:
        given = _list(value)
        if len(given) != len(readers):
            raise Unreadable(f"{value!r:.40} is not {len(readers)} values")
        return tuple([read(v) for read, v in zip(readers, given, strict=True)])

    return read


def _union_reader(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    choices = [_reader(arg) for arg in args if arg is not type(None)]
    optional = type(None) in args

    def read(value: Any) -> Any:
        if value is None and optional:
            return None
        for choice in choices:
            try:
                return choice(value)
            except Unreadable:
                continue
        raise Unreadable(f"{value!r:.40} is none of {args}")

    return read


def _sequence_reader(item_hint: Any) -> Callable[[Any], Any]:
    item = _reader(item_hint)

    def read(value: Any) -> Any:
        if isinstance(value, dict):  # a reply's tokens, as what scores them
            texts = tuple(_checked(str, text) for text in _list(value.get("texts")))
            seed, top_k = _checked(int, value.get("seed")), _checked(int, value.get("top_k"))
            return ScoredTokens(texts, seed=seed, top_k=top_k)
        return tuple(item(v) for v in _list(value))

    return read


def _checked(kind: type, value: Any) -> Any:
    if type(value) is not kind:
        raise Unreadable(f"{value!r:.40} is not a {kind.__name__}")
    return value


def _float(value: Any) -> float:
    if type(value) not in (int, float):
        raise Unreadable(f"{value!r:.40} is not a number")
    return float(value)


def _literal(allowed: tuple[Any, ...], value: Any) -> Any:
    if value not in allowed:
        raise Unreadable(f"{value!r:.40} is not one of {allowed}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise Unreadable(f"{value!r:.40} is not a list")
    return value


def _dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Unreadable(f"{value!r:.40} is not an object")
    return value


#: Names the fields' annotations use that their modules import only for type checkers.
_NAMES = {"ResponseMeta": ResponseMeta, "Reply": Reply, "Json": dict[str, Any]}


# -- journal entries ----------------------------------------------------------------------


_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(JournalEntry))


def encode_entry(entry: JournalEntry) -> bytes:
    """A journal entry, field by field; a request or an answer kept unparsed as its text and
    its parser's name (under ``kept``; an answer kept as what remakes it is made now: another
    process cannot run this one's recipe)."""
    values = {name: getattr(entry, name) for name in _ENTRY_FIELDS}
    kept: dict[str, str] = {}
    for name in ("request", "response"):
        value = values[name]
        if isinstance(value, Unparsed):
            parser = _PARSER_NAMES.get(value.parse)
            raw = value.raw if isinstance(value.raw, bytes) else value.raw()
            if parser is None:  # a parser another process may not have: the value itself
                values[name] = value.parse(raw)
                continue
            try:
                values[name], kept[name] = raw.decode(), parser
            except UnicodeDecodeError:
                values[name], kept[name] = base64.b64encode(raw).decode(), parser + ":base64"
    if kept:
        values["kept"] = kept
    return _dumps(values)


def decode_entry(
    blob: bytes, times: bytes | None = None, number: bytes | None = None
) -> JournalEntry:
    """A journal entry as written, with its times (once sent) and its server-wide call number
    (``scripts.lua`` keeps both beside it)."""
    value = _dict(_loads(blob))
    kept = _dict(value.get("kept", {}))
    entry: JournalEntry = structure(JournalEntry, value)
    for name, how in kept.items():
        parser, _, encoding = _checked(str, how).partition(":")
        text = value.get(name)
        if name not in ("request", "response") or parser not in PARSERS or type(text) is not str:
            raise Unreadable(f"a journal entry's {name} kept as {how!r}")
        raw = base64.b64decode(text, validate=True) if encoding == "base64" else text.encode()
        setattr(entry, name, Unparsed(raw, PARSERS[parser]))
    if number is not None:
        entry.number = int(number)
    if times is not None:
        entry.duration_ms, entry.timing, entry.cut = structure(_TIMES, _loads(times))
    return entry


#: A journal entry's times, as ``RedisStore.complete`` writes them.
_TIMES = tuple[float, list[float] | None, bool]


# -- stored objects -----------------------------------------------------------------------


def encode_stored(stored: Any) -> bytes:
    """A stored object, field by field (a stored response's items built first: until read,
    they are a closure)."""
    if isinstance(stored, StoredResponse):
        stored.items = stored._built()
    return _dumps(stored)


def decode_stored(kind: str, blob: bytes) -> Any:
    return structure(KINDS[kind].kind, _loads(blob))


# -- a namespace's state --------------------------------------------------------------------


class ScenarioCodec:
    """A namespace's state, and in it its scenario and one-off replies, in a form every process
    reads back.

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
        try:
            return self._scenario(kind, value)
        except (ScenarioError, ValueError) as exc:  # a name or a YAML no scenario has
            raise Unreadable(f"its scenario {value!r:.60}: {exc}") from None

    def _scenario(self, kind: str, value: str) -> Any:
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
        budgets = space.budgets  # (a tuple: as read, not taken up by the engine)
        state = _State(
            counter=space.counter,
            journal_seq=space.journal_seq,
            rule_hits=space.rule_hits,
            scenario=self.token(space.scenario),
            pending=[_reply_json(reply) for reply in space.pending],
            clock_offset=space.clock_offset,
            budgets=budgets if budgets is None or isinstance(budgets, tuple) else budgets.as_json(),
            seed=space.seed,
            incarnation=space.incarnation,
        )
        return _dumps(state)

    def decode_state(self, blob: bytes, space: Namespace) -> None:
        """Fill ``space`` from ``blob`` (a change made on a state another process wrote
        decodes it: this is on a request's path)."""
        state: _State = structure(_State, _loads(blob))
        space.counter, space.journal_seq = state.counter, state.journal_seq
        space.rule_hits, space.clock_offset = state.rule_hits, state.clock_offset
        space.budgets, space.seed, space.incarnation = state.budgets, state.seed, state.incarnation
        space.scenario = self.scenario(state.scenario)
        if state.pending:
            from mockserver.scenario.loader import reply_from_data

            try:
                space.pending = deque(reply_from_data(data) for data in state.pending)
            except (ScenarioError, ValueError) as exc:
                raise Unreadable(f"a one-off reply: {exc}") from None


@dataclasses.dataclass(slots=True)
class _State:
    """A namespace's state as written: its scenario by :meth:`ScenarioCodec.token`, its
    one-off replies as their JSON, its budgets as ``Budgets.as_json`` writes them."""

    counter: int
    journal_seq: int
    rule_hits: dict[str, dict[str, int]]
    scenario: tuple[str, str] | None
    pending: list[Any]
    clock_offset: float
    budgets: tuple[tuple[int, float, float], tuple[int, float, float], bool] | None
    seed: int | None
    incarnation: int


def _reply_json(reply: Any) -> Any:
    return reply.model_dump(mode="json", by_alias=True, exclude_unset=True)
