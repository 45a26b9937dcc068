"""What the schema machinery refuses before it starts: schemas no value can be generated for
in bounded time, and values JSON cannot hold."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from typing import Any

from mockserver.scenario.regex_bounds import PatternTooCostly, check_pattern
from mockserver.scenario.regexes import quoted

__all__ = ["MAX_ENUM", "MAX_LENGTH", "MAX_TEXT", "not_json", "too_costly"]

#: What a schema may ask for and still be answered in bounded time (the real API caps enum
#: values near this; a string of a million characters is no test's answer).
MAX_ENUM = 1_000
MAX_LENGTH = 100_000
#: Characters of text one value's generation may produce, tries included: what bounds the
#: time and memory of schemas that multiply lengths (many items, each long).
MAX_TEXT = 1_000_000
_REPEAT = re.compile(r"\{(\d+)")
_DIGITS = len(str(MAX_LENGTH))
# `re._parser` has no stub in typeshed.
_parser: Any = importlib.import_module("re._parser")


def too_costly(schema: Any) -> str | None:
    """The first thing in ``schema`` that generating a value for would take unbounded time."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        enum = node.get("enum")
        if isinstance(enum, list) and len(enum) > MAX_ENUM:
            return f"an enum of {len(enum)} values (at most {MAX_ENUM})"
        for key in ("minLength", "minItems", "minProperties"):
            value = node.get(key)
            if isinstance(value, int | float) and value > MAX_LENGTH:
                return f"{key} {value} (at most {MAX_LENGTH})"
        patterns = [node.get("pattern"), *(node.get("patternProperties") or {})]
        for pattern in patterns:
            if isinstance(pattern, str) and (problem := _costly_pattern(pattern)):
                return problem
        pending.extend(node.values())
    return None


def _costly_pattern(pattern: str) -> str | None:
    if any(len(n) > _DIGITS or int(n) > MAX_LENGTH for n in _REPEAT.findall(pattern)):
        return f"a repeat count over {MAX_LENGTH} in pattern {quoted(pattern)}"
    try:
        check_pattern(pattern)
    except PatternTooCostly as exc:
        return f"pattern {quoted(pattern)}, refused: {exc}"
    try:  # the shortest text it matches: nested repeats and backreferences multiply
        shortest = _parser.parse(pattern).getwidth()[0]
    except (re.error, RecursionError, OverflowError):
        return None  # an invalid pattern is reported as such where it is used
    if shortest > MAX_LENGTH:
        return f"pattern {quoted(pattern)}, whose shortest match is over {MAX_LENGTH} characters"
    return None


def not_json(value: Any) -> str | None:
    """A value JSON cannot hold (an infinite number, text that is not Unicode), said as a
    problem."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return "$: the only values the schema allows hold lone surrogates (not Unicode text)"
    except ValueError:
        return "$: the only values the schema allows are not finite numbers"
    return None
