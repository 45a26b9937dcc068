"""The real API's checks of a strict ("Structured Outputs") JSON schema, for both APIs.

A schema sent with ``strict: true`` (a chat ``response_format``, a Responses ``text.format``,
a function tool of either API) is walked depth-first, keys in document order, through
``properties``, ``items``, ``anyOf`` and ``$defs``/``definitions``; the first violation is a
400, ``Invalid schema for <what>: In context=<path>, <rule>.``, where ``<path>`` is the Python
tuple of keys from the root, as the API writes it. Three rules are checked, in the API's words:

* an object schema (``"type": "object"`` or ``properties``) sets ``additionalProperties`` to
  false;
* its ``required`` lists every key of its ``properties`` (the first one missing is named);
* an array schema (``"type": "array"``) gives its ``items``.

The API's other strict-mode limits (unsupported keywords, sizes, nesting depth) are not
checked. A ``strict`` left out is not checked either (the API's default for a Responses
function tool is strict; the mock treats it as non-strict).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from mockserver.errors import InvalidRequestError

__all__ = ["check_strict_function", "check_strict_response_format", "strict_schema_violation"]

_Path = tuple[str | int, ...]

_ADDITIONAL_PROPERTIES: Final = "'additionalProperties' is required to be supplied and to be false"
_REQUIRED: Final = (
    "'required' is required to be supplied and to be an array including every key in "
    "properties. Missing '{key}'"
)
_ARRAY_ITEMS: Final = "array schema missing items"
#: Keywords whose value maps names to subschemas.
_SCHEMA_MAPS: Final = frozenset({"properties", "$defs", "definitions"})


def strict_schema_violation(schema: Mapping[str, Any]) -> str | None:
    """``In context=<path>, <rule>`` for the first violation in ``schema``, or None."""
    for path, rule in _violations(schema, ()):
        return f"In context={path!r}, {rule}"
    return None


def check_strict_response_format(
    schema: Mapping[str, Any] | None,
    *,
    name: str,
    param: str,
    code: str | None,
) -> None:
    """The 400 for a strict ``response_format`` / ``text.format`` schema the API refuses."""
    _check(schema, what=f"response_format '{name}'", param=param, code=code)


def check_strict_function(parameters: Mapping[str, Any] | None, *, name: str, param: str) -> None:
    """The 400 for a strict function tool's ``parameters`` the API refuses."""
    _check(parameters, what=f"function '{name}'", param=param, code="invalid_function_parameters")


def _check(schema: Mapping[str, Any] | None, *, what: str, param: str, code: str | None) -> None:
    if schema is None:
        return
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
