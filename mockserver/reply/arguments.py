"""Scripted tool arguments made to fit a tool's schema (a tool call's ``fill: generate``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["fitted_arguments"]


def _object_schema(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The object schema arguments are checked against (a root ``$ref`` into ``$defs``
    followed), if it has ``properties``."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        if isinstance(target, Mapping):
            schema = target
    properties = schema.get("properties")
    return schema if isinstance(properties, Mapping) else None


def fitted_arguments(
    given: Mapping[str, Any], schema: Mapping[str, Any], *, generated: Callable[[], Any]
) -> dict[str, Any]:
    """``given``, with the required properties it leaves out taken from a value generated for
    ``schema`` (``generated`` is called only if one is missing), and without the properties a
    closed schema (``additionalProperties: false``) does not declare. In the schema's order."""
    root = _object_schema(schema)
    if root is None:
        return dict(given)
    properties: Mapping[str, Any] = root["properties"]
    required = [name for name in root.get("required") or () if isinstance(name, str)]
    missing = [name for name in required if name not in given]
    made: Any = generated() if missing else {}
    made = made if isinstance(made, Mapping) else {}
    fitted: dict[str, Any] = {}
    for name in properties:
        if name in given:
            fitted[name] = given[name]
        elif name in missing and name in made:
            fitted[name] = made[name]
    if root.get("additionalProperties") is not False:
        fitted.update({k: v for k, v in given.items() if k not in properties})
    return fitted
