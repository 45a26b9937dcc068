"""Draw strings from a regular expression, for JSON Schema ``pattern``.

Walks the parse tree of :mod:`re`'s own parser (cached per pattern). Anchors, word
boundaries and lookarounds are not generated, only tolerated: a caller must check the result
with ``re.search`` and draw again if it fails.
"""

from __future__ import annotations

import functools
import importlib
import random
import re
import string
from collections.abc import Callable
from typing import Any

__all__ = ["RegexUnsupportedError", "sample_regex"]

# `re._parser` has no stub in typeshed; its tree is handled as plain data.
_parser: Any = importlib.import_module("re._parser")

_ALNUM = string.ascii_letters + string.digits
_PRINTABLE = _ALNUM + " -_.,:;!?@#/+*=()[]{}'\"&%$~^|<>`\\"
_CATEGORY_POOLS = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters,
    "CATEGORY_WORD": _ALNUM + "_",
    "CATEGORY_NOT_WORD": " -.,",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": _ALNUM,
}
_SURROGATES = range(0xD800, 0xE000)


class RegexUnsupportedError(ValueError):
    """The pattern is invalid or uses a construct the sampler cannot generate."""


class _State:
    __slots__ = ("extra", "groups", "rng")

    def __init__(self, rng: random.Random, extra: int) -> None:
        self.rng = rng
        self.extra = extra
        self.groups: dict[int, str] = {}


def sample_regex(pattern: str, rng: random.Random, *, extra_repeat: int = 3) -> str:
    """A string built from ``pattern``; open-ended repeats go at most ``extra_repeat`` past
    their minimum. Raises :class:`RegexUnsupportedError` for invalid or unsupported patterns."""
    out: list[str] = []
    _emit(_parse(pattern), _State(rng, extra_repeat), out)
    return "".join(out)


@functools.lru_cache(maxsize=512)
def _parse(pattern: str) -> Any:
    try:
        return _parser.parse(pattern)
    except re.error as exc:
        raise RegexUnsupportedError(f"invalid pattern {pattern!r}: {exc}") from exc


def _emit(tree: Any, st: _State, out: list[str]) -> None:
    for op, av in tree:
        handler = _HANDLERS.get(op.name)
        if handler is None:
            raise RegexUnsupportedError(f"regex construct {op.name} is not supported")
        handler(av, st, out)


def _subpattern(av: Any, st: _State, out: list[str]) -> None:
    group, _add_flags, _del_flags, sub = av
    buf: list[str] = []
    _emit(sub, st, buf)
    if group is not None:
        st.groups[group] = "".join(buf)
    out.extend(buf)


def _repeat(av: Any, st: _State, out: list[str]) -> None:
    low, high, sub = av
    count = st.rng.randint(low, min(high, low + st.extra))
    if len(sub) == 1 and sub[0][0].name == "LITERAL":  # a{99999}: one string, not 99999 walks
        out.append(chr(sub[0][1]) * count)
        return
    for _ in range(count):
        _emit(sub, st, out)


def _groupref_exists(av: Any, st: _State, out: list[str]) -> None:
    group, yes, no = av
    chosen = yes if group in st.groups else no
    if chosen is not None:
        _emit(chosen, st, out)


def _class_char(items: Any, rng: random.Random) -> str:
    if items and items[0][0].name == "NEGATE":
        pool = [c for c in _PRINTABLE if not any(_item_has(item, c) for item in items[1:])]
        if not pool:
            raise RegexUnsupportedError("negated character class excludes every printable char")
        return rng.choice(pool)
    op, av = rng.choice(items)
    if op.name == "LITERAL":
        return chr(av)
    if op.name == "CATEGORY":
        return rng.choice(_CATEGORY_POOLS.get(av.name, _ALNUM))
    if op.name != "RANGE":
        raise RegexUnsupportedError(f"character class item {op.name} is not supported")
    low, high = av
    if low <= 126 and high >= 32:  # prefer printable ASCII when the range allows it
        low, high = max(low, 32), min(high, 126)
    code = rng.randint(low, high)
    return chr(code if code not in _SURROGATES else 0xE000)


def _item_has(item: Any, char: str) -> bool:
    op, av = item
    if op.name == "LITERAL":
        return char == chr(av)
    if op.name == "RANGE":
        return bool(av[0] <= ord(char) <= av[1])
    if op.name == "CATEGORY":
        kind = av.name.removeprefix("CATEGORY_")
        negated = kind.startswith("NOT_")
        test = {"DIGIT": str.isdigit, "SPACE": str.isspace}.get(kind.removeprefix("NOT_"))
        hit = test(char) if test else (char.isalnum() or char == "_")
        return bool(hit != negated)
    raise RegexUnsupportedError(f"character class item {op.name} is not supported")


def _pick_other(av: Any, st: _State, out: list[str]) -> None:
    out.append(st.rng.choice([c for c in _ALNUM if c != chr(av)]))


def _nothing(av: Any, st: _State, out: list[str]) -> None:
    """Zero-width assertions: tolerated, the caller re-checks the whole string."""


_Handler = Callable[[Any, _State, list[str]], None]
_HANDLERS: dict[str, _Handler] = {
    "LITERAL": lambda av, st, out: out.append(chr(av)),
    "NOT_LITERAL": _pick_other,
    "ANY": lambda av, st, out: out.append(st.rng.choice(_ALNUM)),
    "IN": lambda av, st, out: out.append(_class_char(av, st.rng)),
    "BRANCH": lambda av, st, out: _emit(st.rng.choice(av[1]), st, out),
    "SUBPATTERN": _subpattern,
    "ATOMIC_GROUP": lambda av, st, out: _emit(av, st, out),
    "MAX_REPEAT": _repeat,
    "MIN_REPEAT": _repeat,
    "POSSESSIVE_REPEAT": _repeat,
    "GROUPREF": lambda av, st, out: out.append(st.groups.get(av, "")),
    "GROUPREF_EXISTS": _groupref_exists,
    "AT": _nothing,
    "ASSERT": _nothing,
    "ASSERT_NOT": _nothing,
}
