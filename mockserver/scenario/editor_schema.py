"""The JSON Schema of the scenario format, for editors (``mockserver schema``)."""

from __future__ import annotations

from typing import Any

from mockserver.scenario.model import Scenario

__all__ = ["scenario_json_schema"]

#: Stable across releases; the version (``v1``) changes only with an incompatible format.
SCHEMA_VERSION = 1
SCHEMA_ID = f"urn:mockserver:scenario:v{SCHEMA_VERSION}"


def _allow_shorthand(defs: dict[str, Any], name: str, shorthand: dict[str, Any]) -> None:
    """Models that also accept a bare value (``model: gpt-4o`` means ``{equals: gpt-4o}``)."""
    if name in defs:
        defs[name] = {"anyOf": [shorthand, defs[name]], "title": defs[name].get("title", name)}


def scenario_json_schema() -> dict[str, Any]:
    schema = Scenario.model_json_schema(by_alias=True, mode="validation")
    defs = schema.get("$defs", {})
    _allow_shorthand(defs, "TextMatch", {"type": "string"})
    _allow_shorthand(defs, "NumberMatch", {"type": "number"})
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "mockserver scenario"
    return schema
