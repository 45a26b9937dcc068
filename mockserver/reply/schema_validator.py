"""jsonschema's Draft 2020-12 validator with a client's patterns searched within bounds.

jsonschema searches ``pattern`` and ``patternProperties`` with :mod:`re`: no time limit, and a
pattern ``re`` cannot read is an exception in the middle of a reply. Here they are searched by
:func:`~mockserver.reply.schema_values.keywords.pattern_search` (what compiling may cost is
bounded, a search has a time limit); a pattern that breaks a bound is
:class:`~mockserver.reply.schema_values.keywords.UnsatisfiableSchemaError` (the request's 400).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from mockserver.reply.schema_values.keywords import pattern_search

__all__ = ["bounded_validator"]


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not pattern_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if pattern_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _patterned(schema: Any) -> Iterator[str]:
    """The ``patternProperties`` keys of ``schema`` and of the subschemas it applies in place."""
    if not isinstance(schema, Mapping):
        return
    patterns = schema.get("patternProperties")
    yield from patterns if isinstance(patterns, Mapping) else ()
    for keyword in ("allOf", "anyOf", "oneOf"):
        for subschema in schema.get(keyword) or ():
            yield from _patterned(subschema)
    for keyword in ("if", "then", "else"):
        yield from _patterned(schema.get(keyword))


def _searched_first(keyword: Any) -> Any:
    """jsonschema's ``keyword``, once the patterns it will search have been searched here
    (bounded) on the same keys."""

    def checked(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            for pattern in _patterned(schema):
                for key in instance:
                    pattern_search(pattern, key)
        yield from keyword(validator, value, instance, schema)

    return checked


@functools.cache
def bounded_validator() -> Any:
    """The validator class (built on first use: jsonschema is not cheap to import)."""
    from jsonschema import Draft202012Validator, validators

    own = Draft202012Validator.VALIDATORS
    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _searched_first(own["additionalProperties"]),
            "unevaluatedProperties": _searched_first(own["unevaluatedProperties"]),
        },
    )
