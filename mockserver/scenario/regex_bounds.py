"""What compiling a regular expression may cost, checked before it is compiled.

The ``regex`` package unrolls a counted repeat when it compiles it: ``a{1000000000}`` asks it
for a billion steps (some 250 bytes each), and the process grows until the kernel kills it. So
a pattern is read first, without compiling it, and refused when it is longer than
:data:`MAX_PATTERN` characters, nests groups deeper than :data:`MAX_NESTING`, or would compile
to more than :data:`MAX_STEPS` steps: each character, class, escape and group is a step, and a
repeat multiplies the steps of what it repeats by its least count (``{m,n}`` and ``{m,}`` unroll
``m`` times; ``*``, ``+``, ``?`` and the room up to ``n`` stay one loop).

The reading is an upper bound whatever the pattern's flags: it is done with and without
verbose mode (where ``#`` starts a comment) and with and without nested sets (``V1``), and
the largest count is the pattern's.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import regex

__all__ = [
    "CACHE_STEPS",
    "MAX_NESTING",
    "MAX_PATTERN",
    "MAX_STEPS",
    "CompiledPatterns",
    "PatternTooCostly",
    "check_pattern",
    "compile_bounded",
    "pattern_steps",
]

#: Characters a pattern may have.
MAX_PATTERN: Final = 10_000
#: How deep groups may nest.
MAX_NESTING: Final = 100
#: Steps a compiled pattern may hold once its repeats are unrolled (~12 MB, ~15 ms at most).
MAX_STEPS: Final = 50_000
#: Steps the patterns a :class:`CompiledPatterns` keeps may hold together.
CACHE_STEPS: Final = 200_000

_COUNTED = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
#: Digits of a count read as a number (a longer one is more than any bound anyway).
_DIGITS: Final = 18
_NAMED_ESCAPE = re.compile(r"\\(?:[pPN]\{[^}]*\}|g<[^>]*>)")


class PatternTooCostly(ValueError):
    """A pattern whose compiling would cost more than its bounds allow; the message says
    which bound and how to stay within it."""


@dataclass(slots=True)
class _Group:
    total: int = 0  # the steps of everything in the group so far
    last: int = 0  # the steps of its last item: what a repeat after it multiplies


def _add(group: _Group, steps: int) -> None:
    group.total += steps
    group.last = steps


def _repeat(group: _Group, least: int, *, open_ended: bool) -> None:
    """The last item repeated at least ``least`` times (and maybe more)."""
    unrolled = group.last * max(least, 1) + (group.last if open_ended else 0)
    group.total += unrolled - group.last
    group.last = unrolled


def _class_end(pattern: str, start: int, *, nested: bool) -> int:
    """Where the set that opens at ``start`` ends (past its ``]``; the end of the pattern
    if it never does)."""
    depth, at = 0, start
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
        elif char == "[" and depth and pattern.startswith("[:", at) and ":]" in pattern[at:]:
            at = pattern.index(":]", at) + 2  # a POSIX class, [:alpha:]
        elif char == "[" and (depth == 0 or nested):
            depth, at = depth + 1, at + 1
            at += 1 if pattern.startswith("^", at) else 0
            at += 1 if pattern.startswith("]", at) else 0  # a ] first in a set is itself
        elif char == "]":
            depth, at = depth - 1, at + 1
            if depth == 0:
                return at
        else:
            at += 1
    return len(pattern)


def _count(digits: str) -> int:
    return int(digits[:_DIGITS] or 0) if len(digits) <= _DIGITS else 10**_DIGITS


def _quantifier(pattern: str, at: int) -> tuple[int, int, bool] | None:
    """``(end, least, open-ended)`` of a repeat that starts at ``at``, if one does (its lazy
    or possessive mark included)."""
    char = pattern[at]
    if char in "*+?":
        end, least, open_ended = at + 1, 1 if char == "+" else 0, True
    else:
        counted = _COUNTED.match(pattern, at) if char == "{" else None
        if counted is None or not (counted[1] or counted[2] or counted[3]):
            return None
        least = _count(counted[1])
        most = counted[3] if counted[2] else counted[1]
        end, open_ended = counted.end(), not most or _count(most) > least
    return end + (1 if pattern.startswith(("?", "+"), end) else 0), least, open_ended


def _steps(pattern: str, *, verbose: bool, nested: bool) -> int:
    """The steps of ``pattern`` read with these flags."""
    groups = [_Group()]
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if verbose and (char.isspace() or char == "#"):
            at = pattern.find("\n", at) if char == "#" else at + 1
            at = len(pattern) if at < 0 else at
            continue
        if pattern.startswith("(?#", at):  # a comment, to its first )
            at = pattern.find(")", at) + 1 or len(pattern)
            continue
        repeat = _quantifier(pattern, at)
        if repeat is not None:
            at, least, open_ended = repeat
            _repeat(groups[-1], least, open_ended=open_ended)
        elif char == "(":
            if len(groups) > MAX_NESTING:
                raise PatternTooCostly(
                    f"groups nested more than {MAX_NESTING} deep: write the pattern flatter"
                )
            groups.append(_Group())
            at += 1
        elif char == ")" and len(groups) > 1:
            _add(groups[-2], groups.pop().total + 1)
            at += 1
        else:
            end = _item_end(pattern, at, nested=nested)
            _add(groups[-1], 1)
            at = end
    while len(groups) > 1:  # a group left open: the compiler says so; count it all the same
        _add(groups[-2], groups.pop().total + 1)
    return groups[0].total


def _item_end(pattern: str, at: int, *, nested: bool) -> int:
    if pattern[at] == "[":
        return _class_end(pattern, at, nested=nested)
    if pattern[at] == "\\":
        named = _NAMED_ESCAPE.match(pattern, at)
        return named.end() if named else at + 2
    return at + 1


def _readings() -> Iterator[tuple[bool, bool]]:
    for verbose in (False, True):
        for nested in (False, True):
            yield verbose, nested


def pattern_steps(pattern: str) -> int:
    """The most steps ``pattern`` may compile to, whatever its flags; a pattern past
    :data:`MAX_PATTERN` characters or :data:`MAX_NESTING` groups deep is
    :class:`PatternTooCostly` before it is read."""
    if len(pattern) > MAX_PATTERN:
        raise PatternTooCostly(
            f"the pattern is {len(pattern)} characters long; a pattern may have at most "
            f"{MAX_PATTERN}"
        )
    return max(_steps(pattern, verbose=verbose, nested=nested) for verbose, nested in _readings())


def check_pattern(pattern: str) -> int:
    """The steps of ``pattern``, or :class:`PatternTooCostly` if they are too many."""
    steps = pattern_steps(pattern)
    if steps > MAX_STEPS:
        raise PatternTooCostly(
            f"the pattern would compile to {steps:,} steps, more than the {MAX_STEPS:,} a "
            "pattern may hold: a repeat {m} or {m,n} is unrolled m times, and a repeat inside "
            "a repeat multiplies; use a smaller count, or * or + where any number will do"
        )
    return steps


def compile_bounded(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled by the ``regex`` package (kept out of its cache: a cache of big
    patterns is memory no one frees), once :func:`check_pattern` has found it within bounds;
    an invalid pattern raises ``regex.error``."""
    check_pattern(pattern)
    import regex  # on first use: ~8 ms of a cold start, and most scenarios have no regex

    try:
        return regex.compile(pattern, cache_pattern=False)
    except (MemoryError, RecursionError, OverflowError) as exc:  # if the reading erred
        raise PatternTooCostly(
            f"the pattern is too costly to compile ({type(exc).__name__})"
        ) from None


class CompiledPatterns:
    """Patterns compiled by ``compile``, the ones used last kept while the steps they hold
    together stay within ``steps`` (a cache that counted patterns, not their size, could keep
    hundreds of the largest: gigabytes)."""

    def __init__(
        self, compile: Callable[[str], regex.Pattern[str]], *, steps: int = CACHE_STEPS
    ) -> None:
        self._compile = compile
        self._room = steps
        self._kept: OrderedDict[str, tuple[regex.Pattern[str], int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def compiled(self, pattern: str) -> regex.Pattern[str]:
        with self._lock:
            if pattern in self._kept:
                self._kept.move_to_end(pattern)
                return self._kept[pattern][0]
        compiled = self._compile(pattern)
        steps = pattern_steps(pattern)
        with self._lock:
            if pattern not in self._kept:
                self._kept[pattern] = (compiled, steps)
                self._held += steps
            while self._held > self._room and len(self._kept) > 1:
                _, (_, freed) = self._kept.popitem(last=False)
                self._held -= freed
        return compiled
