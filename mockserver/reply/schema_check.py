"""The small validator that checks every generated value before it is returned."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mockserver.reply.schema_formats import _FORMAT_CHECKS
from mockserver.reply.schema_keywords import (
    _TYPE_TESTS,
    _array_parts,
    _bounds,
    _brief,
    _canon,
    _is_num,
    _multiple_ok,
    _prop_parts,
    _regex,
    _same,
)

if TYPE_CHECKING:
    from mockserver.reply.schema import _Gen


_Checker = Callable[["_Gen", Mapping[str, Any], Any, str], "str | None"]


def _check_logic(g: _Gen, s: Mapping[str, Any], v: Any, path: str) -> str | None:
    if "$ref" in s and (problem := g.check_ref(s["$ref"], v, path)):
        return problem
    for sub in s.get("allOf", ()):
        if problem := g.check(sub, v, path):
            return problem
    if "anyOf" in s and all(g.check(b, v, path) for b in s["anyOf"]):
        return f"{path}: {v!r} matches no anyOf branch"
    if "oneOf" in s and (n := g.matching(s["oneOf"], v, path)) != 1:
        return f"{path}: {v!r} matches {n} oneOf branches instead of one"
    if "not" in s and g.check(s["not"], v, path) is None:
        return f"{path}: {v!r} matches the 'not' schema"
    if "enum" in s and _canon(v) not in g.enum_keys(s["enum"]):
        return f"{path}: {v!r} is not one of {s['enum']!r}"
    if "const" in s and not _same(v, s["const"]):
        return f"{path}: {v!r} is not {s['const']!r}"
    types = s.get("type", ())
    types = [types] if isinstance(types, str) else types
    nullable = v is None and s.get("nullable") is True
    if types and not nullable and not any(_TYPE_TESTS.get(t, bool)(v) for t in types):
        return f"{path}: {v!r} is not of type {s['type']!r}"
    return None


def _check_scalar(g: _Gen, s: Mapping[str, Any], v: Any, path: str) -> str | None:
    if _is_num(v):
        low, low_ex, high, high_ex = _bounds(s)
        if v < low or v > high or (low_ex and v == low) or (high_ex and v == high):
            return f"{path}: {v!r} is out of bounds in {_brief(s)}"
        if "multipleOf" in s and not _multiple_ok(v, s["multipleOf"]):
            return f"{path}: {v!r} is not a multiple of {s['multipleOf']!r}"
    if not isinstance(v, str):
        return None
    if not s.get("minLength", 0) <= len(v) <= s.get("maxLength", math.inf):
        return f"{path}: length of {v!r} is out of bounds in {_brief(s)}"
    if "pattern" in s and not _regex(s["pattern"]).search(v):
        return f"{path}: {v!r} does not match {s['pattern']!r}"
    fmt_ok = _FORMAT_CHECKS.get(s.get("format", ""))
    return f"{path}: {v!r} is not a valid {s['format']}" if fmt_ok and not fmt_ok(v) else None


def _check_array(g: _Gen, s: Mapping[str, Any], v: Any, path: str) -> str | None:
    if not isinstance(v, list):
        return None
    if not s.get("minItems", 0) <= len(v) <= s.get("maxItems", math.inf):
        return f"{path}: {len(v)} items is out of bounds in {_brief(s)}"
    if s.get("uniqueItems") is True and len({_canon(x) for x in v}) != len(v):
        return f"{path}: items are not unique"
    prefix, items = _array_parts(s)
    for i, x in enumerate(v):
        if problem := g.check(prefix[i] if i < len(prefix) else items, x, f"{path}[{i}]"):
            return problem
    if "contains" in s:
        n = sum(g.check(s["contains"], x, path) is None for x in v)
        if not s.get("minContains", 1) <= n <= s.get("maxContains", math.inf):
            return f"{path}: {n} items match 'contains'"
    return None


def _check_object(g: _Gen, s: Mapping[str, Any], v: Any, path: str) -> str | None:
    if not isinstance(v, dict):
        return None
    if not s.get("minProperties", 0) <= len(v) <= s.get("maxProperties", math.inf):
        return f"{path}: {len(v)} properties is out of bounds in {_brief(s)}"
    deps = s.get("dependentRequired") or {}
    needed = [*s.get("required", ()), *(d for k in v for d in deps.get(k, ()))]
    if missing := [k for k in needed if k not in v]:
        return f"{path}: missing required properties {missing}"
    for key, x in v.items():
        if "propertyNames" in s and (problem := g.check(s["propertyNames"], key, path)):
            return problem
        for sub in _prop_parts(s, key, s.get("additionalProperties", True)):
            if problem := g.check(sub, x, f"{path}.{key}"):
                return problem
    return None


_CHECKERS: tuple[_Checker, ...] = (_check_logic, _check_scalar, _check_array, _check_object)
