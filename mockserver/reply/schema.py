"""Plausible JSON values for a JSON Schema: fake tool-call arguments and structured outputs.

A value is built by construction from a *flattened* view of each schema node (``$ref`` and
``allOf`` merged into one mapping; ``anyOf``/``oneOf`` kept as choice groups, tried branch by
branch), then checked by a small validator of this module. A value that fails is drawn again a
few times, then reported as :class:`UnsatisfiableSchemaError`. The output depends only on the
schema, ``name`` and the state of ``rng``.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import ipaddress
import json
import math
import random
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from mockserver.reply.regex_sample import RegexUnsupportedError, sample_regex

if TYPE_CHECKING:  # faker is imported on the first generated reply, not at start-up
    from faker import Faker

__all__ = ["UnsatisfiableSchemaError", "value_for_schema"]

_SOFT_DEPTH = 4  # from this nesting on, values are minimal so recursive schemas terminate
_HARD_DEPTH = 32  # past this the schema demands an infinite value (a required self-reference)
_BUDGET = 5000  # schema nodes visited per call: bounds anyOf/oneOf backtracking
_ATTEMPTS = 3
_OPTIONAL_P = 0.7
_NULL_P = 0.15
_HINT_P = 0.25
_SPAN = 100  # width of the range drawn from when a bound is one-sided

_COMPOUND = frozenset({"$ref", "allOf", "anyOf", "oneOf", "const"})
_UNSUPPORTED = frozenset({"then", "else", "dependentSchemas", "$dynamicRef", "$recursiveRef"})
_MAX_KEYS = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_MIN_KEYS = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
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
_DEEP_TYPE_ORDER = ("null", "boolean", "integer", "number", "string", "any", "array", "object")
_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: _is_num(v) and (not isinstance(v, float) or v.is_integer()),
    "number": lambda v: _is_num(v),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}

Schema = Any  # a JSON Schema: a mapping or a boolean
_Groups = list[tuple[str, Sequence[Any], frozenset[str]]]  # kind, branches, $refs in play


class UnsatisfiableSchemaError(ValueError):
    """No value satisfies the schema, or it uses something this generator cannot handle."""


def value_for_schema(
    schema: Mapping[str, Any], *, rng: random.Random, faker: Faker, name: str | None = None
) -> Any:
    faker.seed_instance(rng.getrandbits(64))
    gen = _Gen(schema, rng, faker)
    problem: str | None = None
    try:
        for _ in range(_ATTEMPTS):
            try:
                value = gen.gen(schema, name, "$", 0)
            except UnsatisfiableSchemaError as exc:
                problem = str(exc)
                continue
            problem = gen.check(schema, value, "$")
            if problem is None:
                return value
    except RecursionError as exc:
        raise UnsatisfiableSchemaError("$: the schema nests too deeply") from exc
    except (TypeError, AttributeError, KeyError) as exc:  # a malformed schema
        raise UnsatisfiableSchemaError(f"$: malformed schema ({exc!r})") from exc
    raise UnsatisfiableSchemaError(problem or "$: no value found")


class _Gen:
    def __init__(self, root: Schema, rng: random.Random, faker: Faker) -> None:
        self.root, self.rng, self.faker = root, rng, faker
        self.budget = _BUDGET
        self.active: set[tuple[int, int]] = set()  # ($ref target, value) pairs being checked

    def resolve(self, ref: str, path: str) -> Schema:
        if ref == "#":
            return self.root
        if not ref.startswith("#/"):
            raise UnsatisfiableSchemaError(f"{path}: only local $ref is supported, not {ref!r}")
        node = self.root
        for raw in ref[2:].split("/"):
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, ValueError, TypeError):
                raise UnsatisfiableSchemaError(f"{path}: unresolvable $ref {ref!r}") from None
        return node

    def flatten(
        self, schema: Schema, path: str, chain: frozenset[str] = frozenset()
    ) -> tuple[Mapping[str, Any], _Groups]:
        if schema is True:
            return {}, []
        if not isinstance(schema, Mapping):
            raise UnsatisfiableSchemaError(f"{path}: no value is allowed (schema {schema!r})")
        if schema.keys() & _UNSUPPORTED:
            raise UnsatisfiableSchemaError(f"{path}: unsupported keyword in {sorted(schema)}")
        if not schema.keys() & _COMPOUND:
            return schema, []
        base: dict[str, Any] = {}
        groups: _Groups = []
        for key, val in schema.items():
            if key == "$ref":
                if val in chain:
                    raise UnsatisfiableSchemaError(f"{path}: circular $ref {val!r}")
                self.merge_in(base, groups, self.resolve(val, path), path, chain | {val})
            elif key == "allOf":
                for member in val:
                    self.merge_in(base, groups, member, path, chain)
            elif key in ("anyOf", "oneOf"):
                groups.append((key, val, chain))
            else:
                _merge_kw(
                    base, "enum" if key == "const" else key, [val] if key == "const" else val, path
                )
        return base, groups

    def merge_in(
        self,
        base: dict[str, Any],
        groups: _Groups,
        schema: Schema,
        path: str,
        chain: frozenset[str],
    ) -> None:
        sub, sub_groups = self.flatten(schema, path, chain)
        for key, val in sub.items():
            _merge_kw(base, key, val, path)
        groups.extend(sub_groups)

    def gen(self, schema: Schema, name: str | None, path: str, depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise UnsatisfiableSchemaError(f"{path}: schema too complex to satisfy")
        if depth > _HARD_DEPTH:
            raise UnsatisfiableSchemaError(f"{path}: nesting exceeds {_HARD_DEPTH} levels")
        base, groups = self.flatten(schema, path)
        return self.choose(base, groups, name, path, depth)

    def choose(
        self, base: Mapping[str, Any], groups: _Groups, name: str | None, path: str, depth: int
    ) -> Any:
        if not groups:
            return self.emit(base, name, path, depth)
        kind, branches, chain = groups[0]
        error = UnsatisfiableSchemaError(f"{path}: {kind} has no satisfiable branch")
        for i in self.branch_order(branches, depth) * (2 if kind == "oneOf" else 1):
            try:
                merged: dict[str, Any] = dict(base)
                rest = list(groups[1:])
                # A branch that re-enters a $ref already expanded at this position is circular.
                self.merge_in(merged, rest, branches[i], path, chain)
                value = self.choose(merged, rest, name, path, depth)
            except UnsatisfiableSchemaError as exc:
                error = exc
                continue
            others = (b for j, b in enumerate(branches) if j != i)
            if kind == "anyOf" or all(self.check(b, value, path) for b in others):
                return value
            error = UnsatisfiableSchemaError(f"{path}: value matched several oneOf branches")
        raise error

    def branch_order(self, branches: Sequence[Any], depth: int) -> list[int]:
        deep = depth >= _SOFT_DEPTH
        weight = {i: self.rng.random() + _branch_cost(b, deep) for i, b in enumerate(branches)}
        return sorted(weight, key=weight.__getitem__)

    def emit(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        if "enum" in s:
            options = [v for v in s["enum"] if self.check(s, v, path) is None]
            if not options:
                raise UnsatisfiableSchemaError(f"{path}: no enum value satisfies the schema")
            return copy.deepcopy(self.rng.choice(options))
        pool = [*(s.get("examples") or ()), *([s["default"]] if "default" in s else [])]
        if pool and depth < _SOFT_DEPTH and self.rng.random() < _HINT_P:
            hint = self.rng.choice(pool)
            if self.check(s, hint, path) is None:
                return copy.deepcopy(hint)
        error = UnsatisfiableSchemaError(f"{path}: no allowed type")
        for kind in self.type_order(_types(s), depth >= _SOFT_DEPTH):
            emitter = _EMITTERS.get(kind)
            if emitter is None:
                raise UnsatisfiableSchemaError(f"{path}: unknown type {kind!r}")
            try:
                return emitter(self, s, name, path, depth)
            except UnsatisfiableSchemaError as exc:
                error = exc
        raise error

    def type_order(self, types: list[str], deep: bool) -> list[str]:
        if deep:
            return sorted(
                types, key=lambda t: _DEEP_TYPE_ORDER.index(t) if t in _DEEP_TYPE_ORDER else 9
            )
        rest = [t for t in types if t != "null"]
        self.rng.shuffle(rest)
        if "null" in types:
            rest.insert(0 if not rest or self.rng.random() < _NULL_P else len(rest), "null")
        return rest

    def string(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> str:
        low, high = s.get("minLength", 0), s.get("maxLength", math.inf)
        if low > high:
            raise UnsatisfiableSchemaError(f"{path}: minLength {low} > maxLength {high}")
        pattern, maker = s.get("pattern"), _FORMAT_MAKERS.get(s.get("format", ""))
        for attempt in range(24):
            if isinstance(pattern, str):
                value = self.from_pattern(pattern, path, 3 if attempt < 8 else attempt % 3)
            elif maker is not None:
                value = maker(self.rng, self.faker)
            else:
                value = self.fit(self.text(name), low, high)
            if self.check(s, value, path) is None:
                return value
        raise UnsatisfiableSchemaError(f"{path}: no string satisfies {_brief(s)}")

    def from_pattern(self, pattern: str, path: str, extra_repeat: int) -> str:
        try:
            return sample_regex(pattern, self.rng, extra_repeat=extra_repeat)
        except RegexUnsupportedError as exc:
            raise UnsatisfiableSchemaError(f"{path}: {exc}") from exc

    def text(self, name: str | None) -> str:
        try:
            return _text_rule(name or "")(self.faker, self.rng, _snake(name or ""))
        except AttributeError:  # the faker locale lacks that provider
            return str(self.faker.word())

    def fit(self, text: str, low: int, high: float) -> str:
        while len(text) < low:
            text = f"{text} {self.faker.word()}".strip()
        if len(text) > high:
            text = text[: int(high)].rstrip()
        return text.ljust(low, "x")

    def number(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        return self.numeric(s, name, path, integer=False)

    def integer(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        return self.numeric(s, name, path, integer=True)

    def numeric(self, s: Mapping[str, Any], name: str | None, path: str, integer: bool) -> Any:
        low, low_ex, high, high_ex = _bounds(s)
        if low > high or (low == high and (low_ex or high_ex)):
            raise UnsatisfiableSchemaError(f"{path}: no number within bounds {_brief(s)}")
        nlow, nhigh, places = _num_rule(name)
        step = s.get("multipleOf")
        if integer:
            low = low if math.isinf(low) else math.floor(low) + 1 if low_ex else math.ceil(low)
            high = (
                high if math.isinf(high) else math.ceil(high) - 1 if high_ex else math.floor(high)
            )
            step = Fraction(str(step or 1)).numerator  # integer multiples of p/q are those of p
        for _ in range(16):
            if step is not None:
                k = self.pick_k(low, high, nlow, nhigh, step, path)
                candidates: tuple[Any, ...] = (k * step, round(k * step, 12))
            else:
                a, b = _clip(low, high, nlow, nhigh)
                u = self.rng.uniform(a, b)
                rounded = round(u, places) if places else round(u)
                candidates = (rounded, round(u, 2), round(u, 4), u, (a + b) / 2)
            for value in candidates:
                if self.check(s, value, path) is None:
                    return value
        raise UnsatisfiableSchemaError(f"{path}: no number satisfies {_brief(s)}")

    def pick_k(
        self, low: float, high: float, nlow: float, nhigh: float, step: Any, path: str
    ) -> int:
        """A k with k*step inside the named range if it meets the bounds, else the bounds."""
        a, b = _k_span(max(low, nlow), min(high, nhigh), step)
        if a >= b:  # the named range misses the bounds or only touches them
            c, d = _k_span(low, high, step)
            if c > d:
                raise UnsatisfiableSchemaError(f"{path}: no multiple of {step} within bounds")
            anchor = min(max(a, c), d)  # finite: a is, and it is clamped into [c, d]
            a, b = max(c, anchor - _SPAN), min(d, anchor + _SPAN)
        return self.rng.randint(int(a), int(b))

    def boolean(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> bool:
        return self.rng.random() < 0.5

    def null(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> None:
        return None

    def any(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        if _num_rule(name) is not _DEFAULT_NUM:
            return self.numeric(s, name, path, integer=_num_rule(name)[2] == 0)
        return self.string(s, name, path, depth)

    def object(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        props: Mapping[str, Any] = s.get("properties", {})
        required = list(dict.fromkeys(s.get("required", ())))
        low, high = s.get("minProperties", 0), s.get("maxProperties", math.inf)
        if len(required) > high:
            raise UnsatisfiableSchemaError(f"{path}: more required properties than {high}")
        deep = depth >= _SOFT_DEPTH
        optional = [k for k in props if k not in required]
        chosen = [k for k in optional if not deep and self.rng.random() < _OPTIONAL_P]
        keys = _with_dependents(s, required + chosen[: int(min(high, len(props))) - len(required)])
        keys += [k for k in optional if k not in keys][: max(0, low - len(keys))]
        out = {k: self.gen(self.prop_schema(s, k, path), k, f"{path}.{k}", depth + 1) for k in keys}
        extra = s.get("additionalProperties", s.get("unevaluatedProperties"))
        free = extra in (None, True) and not s.keys() & {"properties", "patternProperties"}
        want = low - len(out)
        if not deep and (free or isinstance(extra, Mapping) or "patternProperties" in s):
            want = max(want, self.rng.randint(0 if props else 1, 2))
        for _ in range(int(min(want, high - len(out)))):
            key = self.extra_key(s, out, extra is False, path, depth)
            out[key] = self.gen(self.prop_schema(s, key, path), key, f"{path}.{key}", depth + 1)
        return out

    def prop_schema(self, s: Mapping[str, Any], key: str, path: str) -> Schema:
        extra = s.get("additionalProperties", s.get("unevaluatedProperties", True))
        parts = _prop_parts(s, key, extra)
        if parts[0] is False:
            raise UnsatisfiableSchemaError(f"{path}: property {key!r} is needed but not allowed")
        return parts[0] if len(parts) == 1 else {"allOf": parts}

    def extra_key(
        self, s: Mapping[str, Any], out: Mapping[str, Any], closed: bool, path: str, depth: int
    ) -> str:
        patterns = list(s.get("patternProperties", {}))
        names = s.get("propertyNames", True)
        for _ in range(20):
            if isinstance(names, Mapping) and names:
                key = str(self.gen(names, "key", path, depth))
            elif patterns and (closed or self.rng.random() < 0.5):
                key = self.from_pattern(self.rng.choice(patterns), path, 2)
            else:
                key = _snake(str(self.faker.word()))
            declared = _prop_parts(s, key, None)[0] is not None
            if key not in out and (declared or not closed) and self.check(names, key, path) is None:
                return key
        raise UnsatisfiableSchemaError(f"{path}: no further property name fits the schema")

    def array(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        prefix, items = _array_parts(s)
        contains = s.get("contains")
        need = s.get("minContains", 1) if contains is not None else 0
        low = max(s.get("minItems", 0), need)
        high = min(s.get("maxItems", math.inf), len(prefix) if items is False else math.inf)
        if low > high:
            raise UnsatisfiableSchemaError(f"{path}: no array length fits {_brief(s)}")
        size = low if depth >= _SOFT_DEPTH else int(min(high, max(low, self.rng.randint(1, 3))))
        seen: set[str] | None = set() if s.get("uniqueItems") is True else None
        out: list[Any] = []
        for i in range(size):
            sub = prefix[i] if i < len(prefix) else items
            try:
                out.append(
                    self.item(
                        {"allOf": [sub, contains]} if i < need else sub,
                        _singular(name),
                        f"{path}[{i}]",
                        depth + 1,
                        seen,
                    )
                )
            except UnsatisfiableSchemaError:
                if i < low:
                    raise
                break
        return out

    def item(
        self, sub: Schema, name: str | None, path: str, depth: int, seen: set[str] | None
    ) -> Any:
        for attempt in range(1 if seen is None else 8):
            # A name can narrow values to a few words ("unit"), so later attempts drop it.
            value = self.gen(sub, name if attempt < 3 else None, path, depth)
            if seen is None:
                return value
            if (key := _canon(value)) not in seen:
                seen.add(key)
                return value
        raise UnsatisfiableSchemaError(f"{path}: no further unique item")

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

    def check(self, s: Schema, v: Any, path: str) -> str | None:
        """Why ``v`` fails ``s``, or None if it validates."""
        if s is True:
            return None
        if not isinstance(s, Mapping):
            return f"{path}: nothing is allowed here"
        for checker in _CHECKERS:
            problem = checker(self, s, v, path)
            if problem is not None:
                return problem
        return None


# --- merging ------------------------------------------------------------------------------


def _merge_kw(dst: dict[str, Any], key: str, val: Any, path: str) -> None:
    if key not in dst:
        dst[key] = val
        return
    old = dst[key]
    if key == "type":
        dst[key] = _meet_types(old, val, path)
    elif key == "enum":
        dst[key] = [x for x in old if any(_same(x, y) for y in val)]
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


# --- small helpers ------------------------------------------------------------------------


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
    parts += [sub for pat, sub in s.get("patternProperties", {}).items() if _regex(pat).search(key)]
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


@functools.lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise UnsatisfiableSchemaError(f"invalid pattern {pattern!r}: {exc}") from exc


def _multiple_ok(v: Any, m: Any) -> bool:
    if not isinstance(m, float):
        return bool(v % m == 0)
    try:  # the float test jsonschema uses, so both agree on values like 0.3 / 0.1
        quotient = v / m
        return bool(int(quotient) == quotient)
    except OverflowError:
        return (Fraction(v) / Fraction(m)).denominator == 1


# --- the validator --------------------------------------------------------------------------

_Checker = Callable[[_Gen, Mapping[str, Any], Any, str], "str | None"]


def _check_logic(g: _Gen, s: Mapping[str, Any], v: Any, path: str) -> str | None:
    if "$ref" in s and (problem := g.check_ref(s["$ref"], v, path)):
        return problem
    for sub in s.get("allOf", ()):
        if problem := g.check(sub, v, path):
            return problem
    if "anyOf" in s and all(g.check(b, v, path) for b in s["anyOf"]):
        return f"{path}: {v!r} matches no anyOf branch"
    if "oneOf" in s and (n := sum(g.check(b, v, path) is None for b in s["oneOf"])) != 1:
        return f"{path}: {v!r} matches {n} oneOf branches instead of one"
    if "not" in s and g.check(s["not"], v, path) is None:
        return f"{path}: {v!r} matches the 'not' schema"
    if "enum" in s and not any(_same(v, x) for x in s["enum"]):
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


# --- formats ------------------------------------------------------------------------------

_EPOCH = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)


def _moment(rng: random.Random, fmt: str) -> str:
    return (_EPOCH + dt.timedelta(seconds=rng.randrange(6 * 365 * 86400))).strftime(fmt)


def _parses(parse: Callable[[str], object], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


_Maker = Callable[[random.Random, "Faker"], str]
_FORMAT_MAKERS: dict[str, _Maker] = {
    "date-time": lambda r, f: _moment(r, "%Y-%m-%dT%H:%M:%SZ"),
    "date": lambda r, f: _moment(r, "%Y-%m-%d"),
    "time": lambda r, f: _moment(r, "%H:%M:%SZ"),
    "duration": lambda r, f: r.choice(("PT15M", "PT1H", "PT1H30M", "P1D", "P2W", "P3DT4H")),
    "email": lambda r, f: str(f.email()),
    "uri": lambda r, f: str(f.url()),
    "uuid": lambda r, f: str(uuid.UUID(int=r.getrandbits(128), version=4)),
    "ipv4": lambda r, f: str(f.ipv4()),
    "ipv6": lambda r, f: str(f.ipv6()),
    "hostname": lambda r, f: str(f.domain_name()),
}
_FORMAT_MAKERS |= {"url": _FORMAT_MAKERS["uri"], "iri": _FORMAT_MAKERS["uri"]}
_FORMAT_MAKERS |= {"idn-email": _FORMAT_MAKERS["email"], "uri-reference": _FORMAT_MAKERS["uri"]}


def _full(pattern: str, parse: Callable[[str], object] | None = None) -> Callable[[str], bool]:
    """A format check: ``pattern`` must match all of it and ``parse`` accept its group 1."""
    regex = re.compile(pattern)

    def ok(v: str) -> bool:
        match = regex.fullmatch(v)
        return match is not None and (parse is None or _parses(parse, match[1]))

    return ok


_OFFSET = r"(\.\d+)?([Zz]|[+-]\d\d:\d\d)"
_FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "date-time": _full(
        rf"(\d{{4}}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d){_OFFSET}", dt.datetime.fromisoformat
    ),
    "date": _full(r"(\d{4}-\d\d-\d\d)", dt.date.fromisoformat),
    "time": _full(rf"(\d\d:\d\d:\d\d){_OFFSET}", dt.time.fromisoformat),
    "duration": _full(r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?"),
    "email": _full(r"[^@\s]+@[^@\s]+"),
    "uri": _full(r"[A-Za-z][A-Za-z0-9+.-]*:\S+"),
    "uuid": _full(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"),
    "ipv4": _full(r"(.+)", ipaddress.IPv4Address),
    "ipv6": _full(r"(.+)", ipaddress.IPv6Address),
    "hostname": _full(
        r"(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*"
    ),
}
_FORMAT_CHECKS["iri"] = _FORMAT_CHECKS["uri"]  # "url" is no standard format: not asserted


# --- realism by property name ---------------------------------------------------------------

_Text = Callable[["Faker", random.Random, str], str]
_CITIES = ("Boston", "Paris", "Tokyo", "London", "Berlin", "Madrid", "Toronto", "Sydney")
_LOCATIONS = ("Boston, MA", "San Francisco, CA", "New York, NY", "Paris, France", "Tokyo, Japan")


def _fake(method: str, **kwargs: Any) -> _Text:
    return lambda f, r, key: str(getattr(f, method)(**kwargs))


def _one_of(*options: str) -> _Text:
    return lambda f, r, key: r.choice(options)


def _id_like(f: Faker, r: random.Random, key: str) -> str:
    token = "".join(r.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(10))
    stem = key.rsplit("_", 2)[-2] if key.count("_") and key.endswith(("_id", "_ids")) else ""
    return f"{stem[:3]}_{token}" if stem else token


def _words(f: Faker, r: random.Random, key: str) -> str:
    return " ".join(f.words(r.randint(1, 2)))


# First match wins; each alternative must start at a word start ("city" but not "ethnicity").
_TEXT_RULES: tuple[tuple[str, _Text], ...] = (
    ("country_?code|country_iso|iso_?code", _fake("country_code")),
    ("e_?mail", _fake("email")),
    ("phone|mobile|tel$|fax", _fake("phone_number")),
    ("first_?name|given_?name", _fake("first_name")),
    ("last_?name|surname|family_?name", _fake("last_name")),
    ("user_?name|login|handle|nickname", _fake("user_name")),
    ("file_?name|filename|path$", _fake("file_name")),
    ("company|organi[sz]ation|employer|org$|business|brand", _fake("company")),
    ("url|uri$|link|website|homepage|href|endpoint", _fake("url")),
    ("location|place(?![a-z])|destination|origin(?![a-z])|venue", _one_of(*_LOCATIONS)),
    ("city|town", _one_of(*_CITIES)),
    ("country|nation", _fake("country")),
    ("address|street", _fake("street_address")),
    ("zip|postal|post_?code", _fake("postcode")),
    ("currency", _fake("currency_code")),
    ("lang|language|locale", _one_of("en", "fr", "de", "es", "ja")),
    ("units?$|units?_|temperature_unit", _one_of("celsius", "fahrenheit")),
    ("status|state$", _one_of("active", "pending", "completed")),
    ("priority|severity|level|urgency", _one_of("low", "medium", "high")),
    ("sort_?order|sort_?dir|order$|direction", _one_of("asc", "desc")),
    ("colou?r", _fake("color_name")),
    ("timezone|tz$", _fake("timezone")),
    (
        "date_?time|timestamp|at$|created|updated|deadline|due$",
        lambda f, r, k: _moment(r, "%Y-%m-%dT%H:%M:%SZ"),
    ),
    ("date|birthday|dob$|day$", lambda f, r, k: _moment(r, "%Y-%m-%d")),
    ("time", lambda f, r, k: f"{r.randint(8, 19):02d}:{r.choice(('00', '15', '30', '45'))}"),
    ("id$|ids$|uuid|key$|token$|ref$", _id_like),
    ("name|author|owner|assignee|recipient|sender|customer|contact|person|user$", _fake("name")),
    ("title|subject|headline|heading", lambda f, r, k: str(f.sentence(nb_words=4)).rstrip(".")),
    (
        "desc|summary|text|content|message|body|comment|note|reason|explanation|answer|"
        "instruction|prompt|bio|detail|feedback|review",
        _fake("sentence"),
    ),
    ("query|search|keyword|topic|term|product|item|tag|category|label", _words),
    ("job|occupation|role|position|profession", _fake("job")),
)
_COMPILED_TEXT_RULES = tuple((re.compile(f"(?<![a-z])(?:{p})"), f) for p, f in _TEXT_RULES)

_NUM_RULES: tuple[tuple[str, float, float, int], ...] = (
    ("age$|age_", 18, 90, 0),
    ("years|experience|tenure", 1, 30, 0),
    ("year", 1990, 2030, 0),
    ("month", 1, 12, 0),
    ("day$|dom$|day_of", 1, 28, 0),
    ("hour", 0, 23, 0),
    ("minute|second", 0, 59, 0),
    ("lat$|lat_|latitude", -90, 90, 4),
    ("lon$|lng$|lon_|lng_|longitude", -180, 180, 4),
    ("temp", -10, 35, 1),
    ("percent|pct", 0, 100, 1),
    ("prob|confidence|likelihood|ratio|similarity|certainty|fraction", 0, 1, 2),
    ("price|cost|amount|total|salary|fee|balance|budget|revenue|subtotal", 1, 500, 2),
    ("rating|stars", 1, 5, 1),
    ("score", 0, 100, 0),
    ("quantity|qty|count(?!r)|num|n$|k$|top_k|limit|page|size", 1, 10, 0),
    ("max|min|guests|people|adults|children|days|nights", 1, 10, 0),
    ("id$|_id", 1, 99999, 0),
)
_COMPILED_NUM_RULES = tuple((re.compile(f"(?<![a-z])(?:{p[0]})"), p[1:]) for p in _NUM_RULES)
_DEFAULT_NUM: tuple[float, float, int] = (0, 100, 2)


@functools.lru_cache(maxsize=1024)
def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_").replace(" ", "_")


@functools.lru_cache(maxsize=1024)
def _text_rule(name: str) -> _Text:
    key = _snake(name)
    return next((f for p, f in _COMPILED_TEXT_RULES if p.search(key)), _words)


@functools.lru_cache(maxsize=1024)
def _num_rule(name: str | None) -> tuple[float, float, int]:
    key = _snake(name or "")
    return next((rule for p, rule in _COMPILED_NUM_RULES if p.search(key)), _DEFAULT_NUM)


_Emitter = Callable[[_Gen, Mapping[str, Any], "str | None", str, int], Any]
_EMITTERS: dict[str, _Emitter] = {
    "string": _Gen.string,
    "number": _Gen.number,
    "integer": _Gen.integer,
    "boolean": _Gen.boolean,
    "null": _Gen.null,
    "any": _Gen.any,
    "object": _Gen.object,
    "array": _Gen.array,
}
