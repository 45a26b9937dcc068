"""The real API's checks of the JSON schemas a request gives, for both APIs: a chat
``response_format``, a Responses ``text.format``, a function tool's ``parameters``.

Every schema must be a JSON Schema (checked against its draft's metaschema; 2020-12 unless its
``$schema`` says otherwise): a keyword of the wrong type (``minLength: "3"``, ``required: "a"``)
is a 400 naming where it is. One sent with ``strict: true`` must also keep the Structured
Outputs rules, walked depth-first, keys in document order, through ``properties``, ``items``,
``anyOf`` and ``$defs``/``definitions``; three are checked, in the API's words:

* an object schema (``"type": "object"`` or ``properties``) sets ``additionalProperties`` to
  false;
* its ``required`` lists every key of its ``properties`` (the first one missing is named);
* an array schema (``"type": "array"``) gives its ``items``.

The first problem is the 400: ``Invalid schema for <what>: In context=<path>, <problem>.``,
where ``<path>`` is the Python tuple of keys from the root, as the API writes it. The API's
other strict-mode limits (unsupported keywords, sizes, nesting depth) are not checked. A
``strict`` left out is not checked either (the API's default for a Responses function tool is
strict; the mock treats it as non-strict).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from mockserver.errors import InvalidRequestError

__all__ = [
    "check_function_schema",
    "check_response_format_schema",
    "schema_violation",
    "strict_schema_violation",
]

_Path = tuple[str | int, ...]

_ADDITIONAL_PROPERTIES: Final = "'additionalProperties' is required to be supplied and to be false"
_REQUIRED: Final = (
    "'required' is required to be supplied and to be an array including every key in "
    "properties. Missing '{key}'"
)
_ARRAY_ITEMS: Final = "array schema missing items"
#: Keywords whose value maps names to subschemas.
_SCHEMA_MAPS: Final = frozenset({"properties", "$defs", "definitions"})
#: How many schemas' verdicts are kept, and the verdicts (oldest first).
_KEPT: Final = 256
_VERDICTS: dict[bytes, str | None] = {}


def strict_schema_violation(schema: Mapping[str, Any]) -> str | None:
    """``In context=<path>, <rule>`` for the first violation in ``schema``, or None."""
    for path, rule in _violations(schema, ()):
        return f"In context={path!r}, {rule}"
    return None


def schema_violation(schema: Any) -> str | None:
    """``In context=<path>, <problem>`` if ``schema`` is not a JSON Schema, or None (the
    verdicts of the schemas seen last are kept: a load test sends one schema many times)."""
    key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    if key in _VERDICTS:
        return _VERDICTS[key]
    from jsonschema import Draft202012Validator, validators  # the first schema pays for it
    from jsonschema.exceptions import best_match

    dialect = schema.get("$schema") if isinstance(schema, Mapping) else None
    checker = (  # the metaschema its $schema names (one that is not a URI: the default's says so)
        validators.validator_for(schema, default=Draft202012Validator)
        if isinstance(dialect, str)
        else Draft202012Validator
    )
    error = best_match(checker(checker.META_SCHEMA).iter_errors(schema))
    verdict = None
    if error is not None:
        verdict = f"In context={tuple(error.absolute_path)!r}, {error.message}"
    if len(_VERDICTS) >= _KEPT:
        del _VERDICTS[next(iter(_VERDICTS))]
    _VERDICTS[key] = verdict
    return verdict


def check_response_format_schema(
    schema: Mapping[str, Any] | None,
    *,
    name: str,
    param: str,
    code: str | None,
    strict: bool,
) -> None:
    """The 400 for a ``response_format`` / ``text.format`` schema the API refuses."""
    _check(schema, what=f"response_format '{name}'", param=param, code=code, strict=strict)


def check_function_schema(
    parameters: Mapping[str, Any] | None, *, name: str, param: str, strict: bool
) -> None:
    """The 400 for a function tool's ``parameters`` the API refuses."""
    what = f"function '{name}'"
    _check(parameters, what=what, param=param, code="invalid_function_parameters", strict=strict)


def _check(
    schema: Mapping[str, Any] | None, *, what: str, param: str, code: str | None, strict: bool
) -> None:
    if schema is None:
        return
    violation = schema_violation(schema)
    if violation is None and strict:
        violation = strict_schema_violation(schema)
    if violation is not None:
        raise InvalidRequestError(
            f"Invalid schema for {what}: {violation}.", param=param, code=code
        )


def _violations(schema: Any, path: _Path) -> Iterator[tuple[_Path, str]]:
    """Every violation in ``schema`` (at ``path``), depth-first, the node's own first."""
    if not isinstance(schema, Mapping):
        return
    kind = schema.get("type")
    properties = schema.get("properties")
    if kind == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            yield path, _ADDITIONAL_PROPERTIES
        required = schema.get("required")
        listed = required if isinstance(required, list) else []
        for key in properties if isinstance(properties, Mapping) else ():
            if key not in listed:
                yield path, _REQUIRED.format(key=key)
                break
    if kind == "array" and "items" not in schema:
        yield path, _ARRAY_ITEMS
    for keyword, value in schema.items():
        if keyword in _SCHEMA_MAPS and isinstance(value, Mapping):
            for key, subschema in value.items():
                yield from _violations(subschema, (*path, keyword, key))
        elif keyword == "items":
            yield from _violations(value, (*path, keyword))
        elif keyword == "anyOf" and isinstance(value, list):
            for index, subschema in enumerate(value):
                yield from _violations(subschema, (*path, keyword, index))
