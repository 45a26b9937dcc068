"""Reading JSON Schema keywords: merging ``allOf``/``$ref`` views, bounds, small predicates."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from mockserver.scenario.regex_bounds import CompiledPatterns, PatternTooCostly, compile_bounded
from mockserver.scenario.regexes import quoted

if TYPE_CHECKING:
    import regex

_MAX_KEYS = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_MIN_KEYS = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_SPAN = 100  # width of the range drawn from when a bound is one-sided

_SUB_KEYS = frozenset(
    {"items", "additionalItems", "additionalProperties", "unevaluatedProperties", "contains"}
    | {"unevaluatedItems", "propertyNames", "not"}
)
_TYPE_HINTS = (
    ("object", frozenset({"properties", "required", "additionalProperties", "minProperties"})),
    ("array", frozenset({"items", "prefixItems", "minItems", "maxItems", "contains"})),
    ("string", frozenset({"minLength", "maxLength", "pattern", "format"})),
    ("number", frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})),
)


class UnsatisfiableSchemaError(ValueError):
    """No value satisfies the schema, or it uses something this generator cannot handle."""


class PatternTooSlowError(UnsatisfiableSchemaError):
    """A ``pattern`` took longer than ``PATTERN_SECONDS`` to check a string (catastrophic
    backtracking): the schema is refused at once, not tried again."""


#: How long one ``pattern`` (or ``patternProperties`` key) may take to check one string: a
#: client's schema must not hold the server (the scenario's regexes have a budget of their own).
PATTERN_SECONDS = 0.05


def _merge_kw(dst: dict[str, Any], key: str, val: Any, path: str) -> None:
    if key not in dst:
        dst[key] = val
        return
    old = dst[key]
    if key == "type":
        dst[key] = _meet_types(old, val, path)
    elif key == "enum":
        allowed = {_canon(y) for y in val}
        dst[key] = [x for x in old if _canon(x) in allowed]
    elif key == "required":
        dst[key] = [*old, *(k for k in val if k not in old)]
    elif key in ("properties", "patternProperties"):
        merged = {k: {"allOf": [v, val[k]]} if k in val else v for k, v in old.items()}
        dst[key] = merged | {k: v for k, v in val.items() if k not in old}
    elif key == "prefixItems":
        longer = old if len(old) > len(val) else val
        dst[key] = [{"allOf": [a, b]} for a, b in zip(old, val, strict=False)] + list(
            longer[len(old) :]
        )
    elif key in _SUB_KEYS:
        dst[key] = False if old is False or val is False else {"allOf": [old, val]}
    elif isinstance(old, bool) or isinstance(val, bool):  # draft-4 exclusive flags, uniqueItems
        dst[key] = old or val
    elif key in _MAX_KEYS or key in _MIN_KEYS:
        dst[key] = max(old, val) if key in _MAX_KEYS else min(old, val)
    elif key == "multipleOf":
        a, b = Fraction(str(old)), Fraction(str(val))
        lcm = Fraction(math.lcm(a.numerator, b.numerator), math.gcd(a.denominator, b.denominator))
        dst[key] = int(lcm) if lcm.denominator == 1 else float(lcm)
    # Anything else: the first value wins and the final check reports a real conflict.


def _meet_types(a: Any, b: Any, path: str) -> list[str]:
    left = [a] if isinstance(a, str) else list(a)
    right = [b] if isinstance(b, str) else list(b)
    out = [t for t in left if t in right or (t == "integer" and "number" in right)]
    out += [t for t in right if t == "integer" and "number" in left and t not in out]
    if not out:
        raise UnsatisfiableSchemaError(f"{path}: allOf requires types {left} and {right} at once")
    return out


def _types(s: Mapping[str, Any]) -> list[str]:
    declared = s.get("type")
    if declared is None:
        types = [t for t, keys in _TYPE_HINTS if not keys.isdisjoint(s)] or ["any"]
    else:
        types = [declared] if isinstance(declared, str) else list(declared)
    if s.get("nullable") is True and "null" not in types:
        types.append("null")
    return types


def _branch_cost(branch: Any, deep: bool) -> float:
    null = isinstance(branch, Mapping) and branch.get("type") == "null"
    if not deep:
        return 0.6 if null else 0.0  # keeps Optional[...] mostly non-null
    return 0.0 if null else 20.0 if isinstance(branch, Mapping) and "$ref" in branch else 10.0


def _brief(s: Mapping[str, Any]) -> str:
    text = repr({k: v for k, v in s.items() if k not in ("properties", "$defs", "description")})
    return text if len(text) < 160 else text[:157] + "..."


def _bounds(s: Mapping[str, Any]) -> tuple[float, bool, float, bool]:
    return (*_edge(s, "minimum", "exclusiveMinimum", True),
            *_edge(s, "maximum", "exclusiveMaximum", False))  # fmt: skip


def _edge(s: Mapping[str, Any], plain: str, exclusive: str, lower: bool) -> tuple[float, bool]:
    value = s.get(plain, -math.inf if lower else math.inf)
    flag = s.get(exclusive)
    if flag is None or isinstance(flag, bool):  # draft 4: a flag on the plain bound
        return value, flag is True
    return (flag, True) if (flag >= value if lower else flag <= value) else (value, False)


def _clip(low: float, high: float, nlow: float, nhigh: float) -> tuple[float, float]:
    a, b = max(low, nlow), min(high, nhigh)
    if a >= b:  # the named range misses the bounds or only touches them
        a, b = low, high
    if math.isinf(a):
        a = b - _SPAN
    return a, a + _SPAN if math.isinf(b) else b


def _k_span(low: float, high: float, step: Any) -> tuple[float, float]:
    return (low if math.isinf(low) else -(-low // step)), (
        high if math.isinf(high) else high // step
    )


def _with_dependents(s: Mapping[str, Any], keys: list[str]) -> list[str]:
    deps = s.get("dependentRequired") or {}
    for key in keys:  # keys appended here are visited too
        keys.extend(d for d in deps.get(key, ()) if d not in keys)
    return keys


def _prop_parts(s: Mapping[str, Any], key: str, fallback: Any) -> list[Any]:
    props = s.get("properties", {})
    parts = [props[key]] if key in props else []
    patterned = s.get("patternProperties", {})
    parts += [sub for pat, sub in patterned.items() if pattern_search(pat, key)]
    return parts or [fallback]


def _array_parts(s: Mapping[str, Any]) -> tuple[Sequence[Any], Any]:
    items = s.get("items", True)
    if isinstance(items, list):  # draft-4 tuple form
        return items, s.get("additionalItems", True)
    return s.get("prefixItems", ()), items


def _singular(name: str | None) -> str | None:
    if name and name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name and name.endswith("s") and not name.endswith("ss") else name


def _norm(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return {k: _norm(x) for k, x in v.items()} if isinstance(v, dict) else v


def _canon(v: Any) -> str:
    """JSON Schema equality key: 1 == 1.0, True != 1, key order ignored."""
    return json.dumps(_norm(v), sort_keys=True, default=repr)


def _same(a: Any, b: Any) -> bool:
    return _canon(a) == _canon(b)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _regex(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled by the ``regex`` package, whose searches can be given a time
    limit (``re``'s cannot), within the bounds of what compiling it may cost."""
    try:
        return _PATTERNS.compiled(pattern)
    except PatternTooCostly as exc:
        raise UnsatisfiableSchemaError(f"pattern {quoted(pattern)} refused: {exc}") from None


def _checked(pattern: str) -> regex.Pattern[str]:
    import regex  # a plain request never checks a schema pattern

    try:
        re.compile(pattern)  # the sampler reads re's parse tree: it must be re's syntax too
        return compile_bounded(pattern)
    except (re.error, regex.error) as exc:
        raise UnsatisfiableSchemaError(f"invalid pattern {quoted(pattern)}: {exc}") from exc


#: The schemas' patterns compiled last (a load test sends one schema many times).
_PATTERNS: Final = CompiledPatterns(_checked)


def pattern_search(pattern: str, text: str) -> bool:
    """Does ``pattern`` match somewhere in ``text`` (JSON Schema's ``pattern``)? A search past
    ``PATTERN_SECONDS`` is :class:`PatternTooSlowError`."""
    try:
        return _regex(pattern).search(text, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        raise PatternTooSlowError(
            f"pattern {quoted(pattern)} takes too long to check a value (over "
            f"{PATTERN_SECONDS * 1000:.0f} ms: catastrophic backtracking); simplify it"
        ) from None


def _multiple_ok(v: Any, m: Any) -> bool:
    if not isinstance(m, float):
        return bool(v % m == 0)
    try:  # the float test jsonschema uses, so both agree on values like 0.3 / 0.1
        quotient = v / m
        return bool(int(quotient) == quotient)
    except OverflowError:
        return (Fraction(v) / Fraction(m)).denominator == 1


_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: _is_num(v) and (not isinstance(v, float) or v.is_integer()),
    "number": lambda v: _is_num(v),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
