"""A tool call's arguments: scripted ones made to fit a tool's schema (a tool call's
``fill: generate``), and the object a family that sends them as one sends."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mockserver.errors import InvalidRequestError
from mockserver.reply.model import ToolCall

__all__ = ["arguments_object", "fitted_arguments"]


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


def arguments_object(call: ToolCall, *, must: str) -> dict[str, Any]:
    """The call's arguments as a JSON object, which ``must`` (``an Ollama tool call's
    arguments``) be: a scripted reply whose arguments are not one is refused."""
    try:
        value = json.loads(call.arguments)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise InvalidRequestError(
            f"mockserver: the arguments of the call of '{call.name}' are not a JSON object, "
            f"which {must} must be",
            code="scenario_reply_invalid",
        )
    return value
