"""Plausible JSON values for a JSON Schema: fake tool-call arguments and structured outputs.

A value is built by construction from a *flattened* view of each schema node (``$ref`` and
``allOf`` merged into one mapping; ``anyOf``/``oneOf`` kept as choice groups, tried branch by
branch), then checked by a small validator of this module. A value that fails is drawn again a
few times, then reported as :class:`UnsatisfiableSchemaError`. The output depends only on the
schema, ``name`` and the state of ``rng``.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from mockserver.reply.schema_values.check import _Checks
from mockserver.reply.schema_values.costs import not_json, too_costly
from mockserver.reply.schema_values.formats import _DEFAULT_NUM, _num_rule, _snake
from mockserver.reply.schema_values.keywords import (
    PatternTooSlowError,
    UnsatisfiableSchemaError,
    _array_parts,
    _branch_cost,
    _brief,
    _canon,
    _merge_kw,
    _prop_parts,
    _singular,
    _types,
    _with_dependents,
)
from mockserver.reply.schema_values.scalars import _Scalars

if TYPE_CHECKING:  # faker is imported on the first generated reply, not at start-up
    from faker import Faker

__all__ = ["UnsatisfiableSchemaError", "value_for_schema"]

_SOFT_DEPTH = 4  # from this nesting on, values are minimal so recursive schemas terminate
_HARD_DEPTH = 32  # past this the schema demands an infinite value (a required self-reference)
_BUDGET = 20_000  # schema nodes flattened per call: bounds backtracking and blow-ups
_ATTEMPTS = 3
_OPTIONAL_P = 0.7
_NULL_P = 0.15
_HINT_P = 0.25
_COMPOUND = frozenset({"$ref", "allOf", "anyOf", "oneOf", "const"})
_UNSUPPORTED = frozenset({"then", "else", "dependentSchemas", "$dynamicRef", "$recursiveRef"})
_DEEP_TYPE_ORDER = ("null", "boolean", "integer", "number", "string", "any", "array", "object")

Schema = Any  # a JSON Schema: a mapping or a boolean
_ABSENT = object()
_Groups = list[tuple[str, Sequence[Any], frozenset[str]]]  # kind, branches, $refs in play


def value_for_schema(
    schema: Mapping[str, Any], *, rng: random.Random, faker: Faker, name: str | None = None
) -> Any:
    costly = too_costly(schema)
    if costly is not None:
        raise UnsatisfiableSchemaError(f"$: mockserver cannot generate {costly}")
    faker.seed_instance(rng.getrandbits(64))
    gen = _Gen(schema, rng, faker)
    problem: str | None = None
    try:
        for _ in range(_ATTEMPTS):
            try:
                value = gen.gen(schema, name, "$", 0)
            except PatternTooSlowError:
                raise
            except UnsatisfiableSchemaError as exc:
                problem = str(exc)
                continue
            problem = gen.final_check(schema, value) or not_json(value)
            if problem is None:
                return value
    except UnsatisfiableSchemaError:  # a pattern too slow to check, said as it is
        raise
    except RecursionError as exc:
        raise UnsatisfiableSchemaError("$: the schema nests too deeply") from exc
    except MemoryError:
        raise UnsatisfiableSchemaError("$: the value would not fit in memory") from None
    except ArithmeticError as exc:  # numbers past what a float holds (``multipleOf: 1e-320``)
        raise UnsatisfiableSchemaError(
            "$: mockserver cannot compute with this schema's numbers (past what a float holds)"
        ) from exc
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        # The request's schemas are checked against their metaschema first (wire.schemas):
        # what still breaks the generator is a schema it cannot read, said without internals.
        raise UnsatisfiableSchemaError("$: mockserver cannot make a value for this schema") from exc
    raise UnsatisfiableSchemaError(problem or "$: no value found")


class _Gen(_Checks, _Scalars):
    def __init__(self, root: Schema, rng: random.Random, faker: Faker) -> None:
        self.root, self.rng, self.faker = root, rng, faker
        self.budget = _BUDGET
        self.text_made = 0  # see spend()
        self.active: set[tuple[int, int]] = set()  # ($ref target, value) pairs being checked
        #: The equality keys of each ``enum`` list checked against (by identity; the list is
        #: kept so that its id stays its own): membership is then one lookup, not a scan.
        self._enums: dict[int, tuple[Sequence[Any], frozenset[str]]] = {}
        #: The values of each ``enum`` schema that pass the rest of it, with their keys.
        self._options: dict[tuple[Any, ...], tuple[Mapping[str, Any], list[tuple[str, Any]]]] = {}
        #: While a unique array item is generated: its path, and the keys of the items so far
        #: (an ``enum`` right at that path then picks among the values not taken yet).
        self.taken: tuple[str, set[str]] | None = None
        #: During :meth:`final_check`: each (subschema, value part) pair's verdict, by ids.
        self._verdicts: dict[tuple[int, int], str | None] | None = None
        #: Verdicts on plain values (strings, numbers, …), by schema id and value: a ``$ref``
        #: reused at every level of a ``not`` or an ``anyOf`` is decided once per value.
        self._scalar_verdicts: dict[tuple[int, type, Any], tuple[Schema, str | None]] = {}
        #: Enum intersections by the ids of the two lists (kept, so that the ids stay theirs).
        self._met: dict[tuple[int, int], tuple[list[Any], list[Any], list[Any]]] = {}
        #: Each branch list's costs (kept, so that its id stays its own), by id and depth kind.
        self._costs: dict[tuple[int, bool], tuple[Sequence[Any], list[float]]] = {}
        #: For each ``oneOf`` list: how many branches allow each value, when all are literals.
        self._literal_branches: dict[int, tuple[Sequence[Any], dict[str, int] | None]] = {}
        #: Each compound schema merged (by identity and $ref chain; the schema is kept so that
        #: its id stays its own): callers only read the result.
        self._flat: dict[
            tuple[int, frozenset[str]], tuple[Schema, tuple[Mapping[str, Any], _Groups]]
        ] = {}

    def enum_options(self, s: Mapping[str, Any], path: str) -> list[tuple[str, Any]]:
        # Keyed by what ``s`` holds, not ``s`` itself: a branch merged again for every item
        # is a new mapping of the same values.
        key = tuple((k, id(v)) for k, v in s.items())
        known = self._options.get(key)
        if known is None:
            options = [(_canon(v), v) for v in s["enum"] if self.check(s, v, path) is None]
            known = self._options[key] = (s, options)
        return known[1]

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
        self.budget -= 1
        if self.budget < 0:
            raise UnsatisfiableSchemaError(f"{path}: schema too complex to satisfy")
        if schema is True:
            return {}, []
        if not isinstance(schema, Mapping):
            raise UnsatisfiableSchemaError(f"{path}: no value is allowed (schema {schema!r})")
        if schema.keys() & _UNSUPPORTED:
            raise UnsatisfiableSchemaError(f"{path}: unsupported keyword in {sorted(schema)}")
        if not schema.keys() & _COMPOUND:
            return schema, []
        known = self._flat.get((id(schema), chain))
        if known is not None:  # the same merge again (every item of an array): one result
            return known[1]
        flat = self._flatten(schema, path, chain)
        self._flat[(id(schema), chain)] = (schema, flat)
        return flat

    def _flatten(
        self, schema: Mapping[str, Any], path: str, chain: frozenset[str]
    ) -> tuple[Mapping[str, Any], _Groups]:
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
            old = base.get(key, _ABSENT)
            # The same subschema met twice (a $ref in two allOf members) must not double up:
            # merged as allOf, it would grow exponentially with the nesting depth.
            if old is val or (isinstance(old, Mapping) and old == val):
                continue
            if key == "enum" and isinstance(old, list) and isinstance(val, list):
                # The same two enums meet again for every item of an array: one intersection
                # (the same list each time, so that the enum caches hold).
                met = self._met.get((id(old), id(val)))
                if met is None:
                    _merge_kw(base, key, val, path)
                    met = self._met[(id(old), id(val))] = (old, val, base[key])
                base[key] = met[2]
                continue
            _merge_kw(base, key, val, path)
        groups.extend(sub_groups)

    def gen(self, schema: Schema, name: str | None, path: str, depth: int) -> Any:
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
            if self.taken is not None and self.taken[0] == path and _canon(value) in self.taken[1]:
                error = UnsatisfiableSchemaError(f"{path}: no further unique item")
                continue  # a unique item: another branch may have a value not taken yet
            if kind == "anyOf" or self.matching(branches, value, path) == 1:
                return value
            error = UnsatisfiableSchemaError(f"{path}: value matched several oneOf branches")
        raise error

    def branch_order(self, branches: Sequence[Any], depth: int) -> list[int]:
        deep = depth >= _SOFT_DEPTH
        known = self._costs.get((id(branches), deep))
        if known is None:  # the same branches again for every item of an array: costed once
            known = self._costs[(id(branches), deep)] = (
                branches,
                [_branch_cost(b, deep) for b in branches],
            )
        draw = self.rng.random
        weight = [draw() + cost for cost in known[1]]
        return sorted(range(len(weight)), key=weight.__getitem__)

    def emit(self, s: Mapping[str, Any], name: str | None, path: str, depth: int) -> Any:
        if "enum" in s:
            options = self.enum_options(s, path)
            if not options:
                raise UnsatisfiableSchemaError(f"{path}: no enum value satisfies the schema")
            if self.taken is not None and self.taken[0] == path:
                taken = self.taken[1]
                options = [option for option in options if option[0] not in taken]
                if not options:
                    raise UnsatisfiableSchemaError(f"{path}: no further unique item")
            return copy.deepcopy(self.rng.choice(options)[1])
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
        needed = low - len(out)  # past these, extra keys are optional: none left is fine
        for i in range(int(min(want, high - len(out)))):
            try:
                key = self.extra_key(s, out, extra is False, path, depth)
            except UnsatisfiableSchemaError:
                if i < needed:
                    raise
                break
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
            outer, self.taken = self.taken, None if seen is None else (path, seen)
            try:
                value = self.gen(sub, name if attempt < 3 else None, path, depth)
            finally:
                self.taken = outer
            if seen is None:
                return value
            if (key := _canon(value)) not in seen:
                seen.add(key)
                return value
        raise UnsatisfiableSchemaError(f"{path}: no further unique item")


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
