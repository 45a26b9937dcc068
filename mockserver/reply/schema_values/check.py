"""The small validator that checks every generated value before it is returned."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mockserver.reply.schema_values.formats import _FORMAT_CHECKS
from mockserver.reply.schema_values.keywords import (
    _TYPE_TESTS,
    UnsatisfiableSchemaError,
    _array_parts,
    _bounds,
    _brief,
    _canon,
    _is_num,
    _multiple_ok,
    _prop_parts,
    _same,
    pattern_search,
)

_Checker = Callable[["_Checks", Mapping[str, Any], Any, str], "str | None"]
Schema = Any  # a JSON Schema: a mapping or a boolean


def _check_logic(g: _Checks, s: Mapping[str, Any], v: Any, path: str) -> str | None:
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


def _check_scalar(g: _Checks, s: Mapping[str, Any], v: Any, path: str) -> str | None:
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
    if "pattern" in s and not pattern_search(s["pattern"], v):
        return f"{path}: {v!r} does not match {s['pattern']!r}"
    fmt_ok = _FORMAT_CHECKS.get(s.get("format", ""))
    return f"{path}: {v!r} is not a valid {s['format']}" if fmt_ok and not fmt_ok(v) else None


def _check_array(g: _Checks, s: Mapping[str, Any], v: Any, path: str) -> str | None:
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


def _check_object(g: _Checks, s: Mapping[str, Any], v: Any, path: str) -> str | None:
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


_SCALARS = frozenset({str, int, float, bool})


class _Checks:
    """Methods of ``schema._Gen`` that check values against schemas (it holds the state they
    use: the memos are per generation)."""

    root: Any
    active: set[tuple[int, int]]
    _enums: dict[int, tuple[Sequence[Any], frozenset[str]]]
    _literal_branches: dict[int, tuple[Sequence[Any], dict[str, int] | None]]
    _verdicts: dict[tuple[int, int], str | None] | None
    _scalar_verdicts: dict[tuple[int, type, Any], tuple[Any, str | None]]

    def resolve(self, ref: str, path: str) -> Any:
        raise NotImplementedError  # schema._Gen's

    def enum_keys(self, values: Sequence[Any]) -> frozenset[str]:
        known = self._enums.get(id(values))
        if known is None:
            known = self._enums[id(values)] = (values, frozenset(map(_canon, values)))
        return known[1]

    def matching(self, branches: Sequence[Any], v: Any, path: str) -> int:
        """How many of ``branches`` (a ``oneOf``) ``v`` is valid for. Branches that are only
        values (``const``/``enum``, with annotations) are counted from a table made once."""
        known = self._literal_branches.get(id(branches))
        if known is None:
            table = _literal_table(branches)
            known = self._literal_branches[id(branches)] = (branches, table)
        table = known[1]
        if table is not None:
            return table.get(_canon(v), 0)
        return sum(self.check(b, v, path) is None for b in branches)

    def check_ref(self, ref: str, v: Any, path: str) -> str | None:
        target = self.resolve(ref, path)
        key = (id(target), id(v))
        if key in self.active:  # the same value against the same schema again: never ends
            raise UnsatisfiableSchemaError(f"{path}: $ref {ref!r} loops without nesting")
        self.active.add(key)
        try:
            return self.check(target, v, path)
        finally:
            self.active.discard(key)

    def final_check(self, schema: Schema, value: Any) -> str | None:
        """:meth:`check` of a whole generated value, each (subschema, part of the value) pair
        checked once: a ``$ref`` reused at every level would otherwise be checked along every
        path to it, 2ⁿ times. (Only here: the parts of ``value`` live while it is checked, so
        their ids stay theirs.)"""
        self._verdicts = {}
        try:
            return self.check(schema, value, "$")
        finally:
            self._verdicts = None

    def check(self, s: Schema, v: Any, path: str) -> str | None:
        """Why ``v`` fails ``s``, or None if it validates."""
        if s is True:
            return None
        if not isinstance(s, Mapping):
            return f"{path}: nothing is allowed here"
        scalar = v is None or type(v) in _SCALARS
        if scalar:  # a verdict on a plain value holds for the whole generation
            known = self._scalar_verdicts.get((id(s), type(v), v))
            if known is not None and known[0] is s:
                return known[1]
        verdicts = self._verdicts
        if verdicts is not None and (key := (id(s), id(v))) in verdicts:
            return verdicts[key]
        problem = None
        for checker in _CHECKERS:
            problem = checker(self, s, v, path)
            if problem is not None:
                break
        if scalar:  # the schema is kept with its verdict: its id stays its own
            self._scalar_verdicts[(id(s), type(v), v)] = (s, problem)
        elif verdicts is not None:
            verdicts[key] = problem
        return problem


#: What a branch may hold besides its values and still be only those values.
_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated"})


def _literal_table(branches: Sequence[Any]) -> dict[str, int] | None:
    """For branches that each allow only listed values (``const`` or ``enum``, plus
    annotations): how many branches allow each value, by equality key; else ``None``."""
    table: dict[str, int] = {}
    for branch in branches:
        if not isinstance(branch, Mapping) or not branch.keys() - _ANNOTATIONS <= {"const", "enum"}:
            return None
        if "const" in branch and "enum" in branch:
            return None  # both must hold: leave it to the checker
        values = [branch["const"]] if "const" in branch else branch.get("enum")
        if not isinstance(values, list):
            return None
        for key in {_canon(value) for value in values}:
            table[key] = table.get(key, 0) + 1
    return table
