"""The schemas a request gives: the real API's 400 for one that is not a JSON Schema, and for
a strict ("Structured Outputs") one that breaks the rules it enforces, in each of the four
places a schema goes (chat ``response_format`` and function tools, Responses ``text.format``
and function tools)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.wire.chat import parse_chat_request
from mockserver.wire.responses import parse_responses_request
from mockserver.wire.schemas import strict_schema_violation

ADDITIONAL = "'additionalProperties' is required to be supplied and to be false"
ITEMS = "array schema missing items"


def missing(key: str) -> str:
    return (
        "'required' is required to be supplied and to be an array including every key in "
        f"properties. Missing '{key}'"
    )


def obj(properties: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """A compliant object schema (``more`` overrides or adds keywords)."""
    properties = properties if properties is not None else {"word": {"type": "string"}}
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return {**schema, **more}


#: A compliant tool that goes first, so the checked tool's index is 1.
CHAT_TOOL_OK = {
    "type": "function",
    "function": {"name": "ok_tool", "parameters": obj(), "strict": True},
}
RESPONSES_TOOL_OK = {"type": "function", "name": "ok_tool", "parameters": obj(), "strict": True}


def _strict(strict: bool | None) -> dict[str, Any]:
    return {} if strict is None else {"strict": strict}


@dataclass(frozen=True)
class Place:
    """One place a strict schema goes: how to send it there and the 400 it gets."""

    id: str
    body: Callable[[dict[str, Any], bool | None], dict[str, Any]]
    parse: Callable[[dict[str, Any]], object]
    subject: str
    param: str
    code: str | None

    def error(self, schema: dict[str, Any], *, strict: bool | None = True) -> dict[str, Any]:
        with pytest.raises(InvalidRequestError) as caught:
            self.parse(self.body(schema, strict))
        assert caught.value.status == 400
        body: dict[str, Any] = caught.value.body()
        return body

    def expected(self, context: str, rule: str) -> dict[str, Any]:
        return {
            "error": {
                "message": f"Invalid schema for {self.subject}: In context={context}, {rule}.",
                "type": "invalid_request_error",
                "param": self.param,
                "code": self.code,
            }
        }


CHAT_BASE: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
RESPONSES_BASE: dict[str, Any] = {"model": "gpt-4o", "input": "Hi"}

PLACES = [
    Place(
        id="chat response_format",
        body=lambda schema, strict: {
            **CHAT_BASE,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "report", "schema": schema, **_strict(strict)},
            },
        },
        parse=parse_chat_request,
        subject="response_format 'report'",
        param="response_format",
        code=None,
    ),
    Place(
        id="chat function tool",
        body=lambda schema, strict: {
            **CHAT_BASE,
            "tools": [
                CHAT_TOOL_OK,
                {
                    "type": "function",
                    "function": {"name": "lookup", "parameters": schema, **_strict(strict)},
                },
            ],
        },
        parse=parse_chat_request,
        subject="function 'lookup'",
        param="tools[1].function.parameters",
        code="invalid_function_parameters",
    ),
    Place(
        id="responses text.format",
        body=lambda schema, strict: {
            **RESPONSES_BASE,
            "text": {
                "format": {"type": "json_schema", "name": "report", "schema": schema}
                | _strict(strict)
            },
        },
        parse=parse_responses_request,
        subject="response_format 'report'",
        param="text.format.schema",
        code="invalid_json_schema",
    ),
    Place(
        id="responses function tool",
        body=lambda schema, strict: {
            **RESPONSES_BASE,
            "tools": [
                RESPONSES_TOOL_OK,
                {"type": "function", "name": "lookup", "parameters": schema} | _strict(strict),
            ],
        },
        parse=parse_responses_request,
        subject="function 'lookup'",
        param="tools[1].parameters",
        code="invalid_function_parameters",
    ),
]
places = pytest.mark.parametrize("place", PLACES, ids=[place.id for place in PLACES])

#: (schema, context, rule): one violation each, at the root and nested.
VIOLATIONS = [
    pytest.param(
        {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
        "()",
        ADDITIONAL,
        id="additionalProperties missing",
    ),
    pytest.param(obj(additionalProperties=True), "()", ADDITIONAL, id="additionalProperties true"),
    pytest.param(
        obj(additionalProperties={"type": "string"}),
        "()",
        ADDITIONAL,
        id="additionalProperties a schema",
    ),
    pytest.param(
        {"properties": {"word": {"type": "string"}}, "required": ["word"]},
        "()",
        ADDITIONAL,
        id="properties without type",
    ),
    pytest.param(
        {"type": "object", "additionalProperties": False, "properties": {"sql": {}, "params": {}}},
        "()",
        missing("sql"),
        id="required missing",
    ),
    pytest.param(
        obj({"sql": {}, "params": {}, "limit": {}}, required=["sql"]),
        "()",
        missing("params"),
        id="required incomplete",
    ),
    pytest.param(  # not a JSON Schema at all: that is said first
        obj({"sql": {}}, required="sql"),
        "('required',)",
        "'sql' is not of type 'array'",
        id="required not an array",
    ),
    pytest.param(
        obj({"paths": {"type": "array"}}),
        "('properties', 'paths')",
        ITEMS,
        id="array without items",
    ),
    pytest.param(
        obj({"etymology": {"type": "object", "properties": {"root": {"type": "string"}}}}),
        "('properties', 'etymology')",
        ADDITIONAL,
        id="property of a property",
    ),
    pytest.param(
        obj({"word": obj({"etymology": obj({"root": {}, "era": {}}, required=["root"])})}),
        "('properties', 'word', 'properties', 'etymology')",
        missing("era"),
        id="deeply nested",
    ),
    pytest.param(
        obj({"paths": {"type": "array", "items": {"type": "object", "properties": {}}}}),
        "('properties', 'paths', 'items')",
        ADDITIONAL,
        id="array items",
    ),
    pytest.param(
        obj({"grid": {"type": "array", "items": {"type": "array"}}}),
        "('properties', 'grid', 'items')",
        ITEMS,
        id="array of arrays",
    ),
    pytest.param(
        obj(
            {"steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}}},
            **{"$defs": {"Step": {"type": "object", "properties": {"say": {}}}}},
        ),
        "('$defs', 'Step')",
        ADDITIONAL,
        id="$defs",
    ),
    pytest.param(
        obj(
            {"step": {"$ref": "#/definitions/Step"}},
            definitions={"Step": obj({"say": {}, "wait": {}}, required=["wait"])},
        ),
        "('definitions', 'Step')",
        missing("say"),
        id="definitions",
    ),
    pytest.param(
        obj({"answer": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {}}]}}),
        "('properties', 'answer', 'anyOf', 1)",
        ADDITIONAL,
        id="anyOf branch",
    ),
]


@places
@pytest.mark.parametrize(("schema", "context", "rule"), VIOLATIONS)
def test_each_rule_is_a_400_located_by_its_context(
    place: Place, schema: dict[str, Any], context: str, rule: str
) -> None:
    assert place.error(schema) == place.expected(context, rule)


#: (schema, context, rule): several violations; the API reports the first, depth-first.
FIRST_VIOLATIONS = [
    pytest.param(
        {"type": "object", "properties": {"a": {}}},
        "()",
        ADDITIONAL,
        id="additionalProperties before required",
    ),
    pytest.param(
        {"type": "object", "properties": {"a": {"type": "array"}}},
        "()",
        ADDITIONAL,
        id="the node before its children",
    ),
    pytest.param(
        obj({"a": obj({"x": {}}, required=[]), "b": {"type": "array"}}),
        "('properties', 'a')",
        missing("x"),
        id="properties in order",
    ),
    pytest.param(
        obj({"b": {"type": "array"}, "a": obj({"x": {}}, required=[])}),
        "('properties', 'b')",
        ITEMS,
        id="properties in document order, not sorted",
    ),
    pytest.param(
        obj({"a": obj({"x": obj(additionalProperties=True)}), "b": {"type": "array"}}),
        "('properties', 'a', 'properties', 'x')",
        ADDITIONAL,
        id="depth first",
    ),
    pytest.param(
        {
            "$defs": {"D": {"type": "array"}},
            **obj({"a": {"type": "object"}}),
        },
        "('$defs', 'D')",
        ITEMS,
        id="$defs first when written first",
    ),
    pytest.param(
        obj({"a": {"type": "object"}}, **{"$defs": {"D": {"type": "array"}}}),
        "('properties', 'a')",
        ADDITIONAL,
        id="$defs last when written last",
    ),
]


@places
@pytest.mark.parametrize(("schema", "context", "rule"), FIRST_VIOLATIONS)
def test_only_the_first_violation_is_reported(
    place: Place, schema: dict[str, Any], context: str, rule: str
) -> None:
    assert place.error(schema) == place.expected(context, rule)


COMPLIANT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "A title."},
        "tags": {"type": "array", "items": {"type": "string"}},
        "author": obj({"name": {"type": "string"}, "born": {"type": ["integer", "null"]}}),
        "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "kind": {"type": "string", "enum": ["a", "b"]},
    },
    "required": ["kind", "note", "steps", "author", "tags", "title"],  # any order
    "additionalProperties": False,
    "$defs": {"Step": obj({"say": {"type": "string"}, "then": {"anyOf": [{"$ref": "#"}]}})},
}


@places
def test_a_compliant_strict_schema_is_accepted(place: Place) -> None:
    body = place.body(COMPLIANT, True)
    place.parse(copy.deepcopy(body))


@places
@pytest.mark.parametrize("strict", [False, None], ids=["strict false", "strict omitted"])
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "array"}}},
        obj({"a": {"type": "object"}}, required=[]),
    ],
    ids=["root", "nested"],
)
def test_a_non_compliant_schema_is_accepted_when_not_strict(
    place: Place, schema: dict[str, Any], strict: bool | None
) -> None:
    place.parse(place.body(schema, strict))


@pytest.mark.parametrize(
    ("schema", "violation"),
    [
        (obj(), None),
        ({}, None),  # no type, no properties: not an object schema
        ({"type": "object", "properties": {}, "additionalProperties": False}, None),
        ({"type": "array", "items": {"type": "array"}}, f"In context=('items',), {ITEMS}"),
        ({"type": "string"}, None),
    ],
)
def test_the_context_is_the_python_repr_of_the_path(
    schema: dict[str, Any], violation: str | None
) -> None:
    assert strict_schema_violation(schema) == violation


@pytest.mark.parametrize("strict", [None, False, True])
@pytest.mark.parametrize("place", PLACES, ids=lambda place: place.id)
@pytest.mark.parametrize(
    ("schema", "context", "problem"),
    [
        pytest.param(
            {"type": "string", "minLength": "3"},
            "('minLength',)",
            "'3' is not of type 'integer'",
            id="keyword of the wrong type",
        ),
        pytest.param({"enum": 5}, "('enum',)", "5 is not of type 'array'", id="enum not a list"),
        pytest.param(
            {"type": "object", "properties": {"a": {"type": "array", "minItems": 1.5}}},
            "('properties', 'a', 'minItems')",
            "1.5 is not of type 'integer'",
            id="nested",
        ),
        pytest.param(
            {"type": "object", "properties": [1]},
            "('properties',)",
            "[1] is not of type 'object'",
            id="properties not a mapping",
        ),
    ],
)
def test_a_schema_that_is_not_a_json_schema_is_a_400_strict_or_not(
    place: Place, strict: bool | None, schema: dict[str, Any], context: str, problem: str
) -> None:
    assert place.error(schema, strict=strict) == place.expected(context, problem)


@pytest.mark.parametrize("place", PLACES, ids=lambda place: place.id)
def test_an_unusual_but_valid_schema_is_accepted_when_not_strict(place: Place) -> None:
    schema = {"type": "number", "multipleOf": 1e-320, "nullable": True, "x-vendor": 1}
    place.parse(place.body(schema, None))


@pytest.mark.parametrize("dialect", [5, 5.5, True, [], {}, None])
@pytest.mark.parametrize("place", PLACES, ids=lambda place: place.id)
def test_a_dialect_that_is_not_a_uri_is_a_400(place: Place, dialect: Any) -> None:
    schema = {"$schema": dialect, "type": "object"}
    error = place.error(schema, strict=None)
    assert error["error"]["message"].endswith(
        f"In context=('$schema',), {dialect!r} is not of type 'string'."
    )
