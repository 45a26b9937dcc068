"""value_for_schema: values always validate, look plausible and depend only on schema + rng."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import pytest
from faker import Faker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator, Draft202012Validator, FormatChecker
from pydantic import BaseModel, Field

from mockserver.reply.schema_values.generate import UnsatisfiableSchemaError, value_for_schema

# One Faker shared by every call, as in the server: value_for_schema must reseed it itself.
FAKER = Faker()

# jsonschema only checks these formats when optional packages are installed; check them here.
FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or (
        "T" in value.upper() and dt.datetime.fromisoformat(value).tzinfo is not None
    )


@FORMATS.checks("time", raises=ValueError)
def _is_time(value: object) -> bool:
    return not isinstance(value, str) or dt.time.fromisoformat(value).tzinfo is not None


@FORMATS.checks("duration")
def _is_duration(value: object) -> bool:
    pattern = r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?"
    return not isinstance(value, str) or re.fullmatch(pattern, value) is not None


@FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(urlsplit(value).scheme and urlsplit(value).netloc)


@FORMATS.checks("hostname")
def _is_hostname(value: object) -> bool:
    label = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    return not isinstance(value, str) or re.fullmatch(rf"{label}(\.{label})*", value) is not None


CLAIMED_FORMATS = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "uri",
    "url",
    "uuid",
    "ipv4",
    "ipv6",
    "hostname",
]


def generate(schema: Any, seed: int = 0, name: str | None = None) -> Any:
    return value_for_schema(schema, rng=random.Random(seed), faker=FAKER, name=name)


def assert_valid(schema: Any, value: Any) -> None:
    Draft202012Validator(schema, format_checker=FORMATS).validate(value)


# --- strategies: random satisfiable schemas ---------------------------------------------------

PROPERTY_NAMES = [
    "name",
    "city",
    "location",
    "email",
    "age",
    "price",
    "count",
    "title",
    "description",
    "id",
    "user_id",
    "country_code",
    "unit",
    "status",
    "created_at",
    "latitude",
    "score",
    "tags",
    "value",
    "x",
]
PATTERNS = [
    r"^[A-Z]{3}-\d{4}$",
    r"^[a-z]+(_[a-z]+)*$",
    r"^\+?[0-9]{7,12}$",
    r"^(foo|bar|baz)\d?$",
    r"^[^@\s]+@example\.com$",
    r"^\w{2,8}$",
    r"ab+c",
    r"^(?:[0-9a-f]{2}:){2}[0-9a-f]{2}$",
    r"^(\d)-\1$",
    r"^[A-Z][a-z]*(?: [A-Z][a-z]*)?$",
]
SCALARS = st.none() | st.booleans() | st.integers(-50, 50) | st.sampled_from(["a", "b", "c d"])


@st.composite
def integer_schemas(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    step = draw(st.sampled_from([None, 1, 2, 3, 5, 10]))
    low = draw(st.none() | st.integers(-1000, 1000))
    high = None if draw(st.booleans()) else (low or 0) + draw(st.integers(12, 400))
    exclusive = draw(st.booleans())
    if low is not None:
        schema["exclusiveMinimum" if exclusive else "minimum"] = low - 1 if exclusive else low
    if high is not None:
        schema["exclusiveMaximum" if exclusive else "maximum"] = high + 1 if exclusive else high
    if step is not None:
        schema["multipleOf"] = step
    return schema


@st.composite
def number_schemas(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "number"}
    low = draw(st.none() | st.floats(-1e4, 1e4, allow_nan=False))
    width = draw(st.floats(1.5, 1e3))  # wider than any step, so a multiple fits inside
    if low is not None:
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = (low or 0) + width
    if draw(st.booleans()):
        schema["multipleOf"] = draw(st.sampled_from([0.25, 0.5, 1]))  # binary-exact steps
    return schema


@st.composite
def string_schemas(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["plain", "pattern", "format"]))
    if kind == "pattern":
        return {"type": "string", "pattern": draw(st.sampled_from(PATTERNS))}
    if kind == "format":
        return {"type": "string", "format": draw(st.sampled_from(CLAIMED_FORMATS))}
    schema: dict[str, Any] = {"type": "string"}
    low = draw(st.integers(0, 30))
    if draw(st.booleans()):
        schema["minLength"] = low
    if draw(st.booleans()):
        schema["maxLength"] = low + draw(st.integers(1, 40))
    return schema


TYPED_LEAVES = (
    integer_schemas()
    | number_schemas()
    | string_schemas()
    | st.just({"type": "boolean"})
    | st.just({"type": "null"})
)
LEAVES = (
    TYPED_LEAVES
    | st.lists(SCALARS, min_size=1, max_size=4, unique_by=json.dumps).map(lambda e: {"enum": e})
    | SCALARS.map(lambda c: {"const": c})
    | st.just({})
)
WIDE_ITEMS = st.sampled_from(
    [{"type": "string"}, {"type": "integer"}, {"type": "string", "format": "uuid"}]
)


@st.composite
def objects(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(PROPERTY_NAMES), min_size=1, max_size=4, unique=True))
    schema: dict[str, Any] = {"type": "object", "properties": {n: draw(children) for n in names}}
    schema["required"] = draw(st.lists(st.sampled_from(names), unique=True))
    extra = draw(st.sampled_from(["absent", "false", "true", "schema"]))
    if extra != "absent":
        schema["additionalProperties"] = {"false": False, "true": True}.get(extra) or draw(LEAVES)
    if draw(st.booleans()):
        schema["minProperties"] = draw(st.integers(0, len(names)))
    return schema


@st.composite
def arrays(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    low = draw(st.integers(0, 3))
    schema: dict[str, Any] = {"type": "array", "minItems": low}
    if draw(st.booleans()):
        schema["maxItems"] = low + draw(st.integers(0, 3))
    shape = draw(st.sampled_from(["items", "unique", "prefix"]))
    if shape == "items":
        schema["items"] = draw(children)
    elif shape == "unique":
        schema |= {"items": draw(WIDE_ITEMS), "uniqueItems": True}
    else:
        prefix = draw(st.lists(children, min_size=1, max_size=3))
        closed = draw(st.booleans())
        schema |= {"prefixItems": prefix, "items": False if closed else draw(children)}
        if closed:
            schema["minItems"] = min(low, len(prefix))
            schema["maxItems"] = min(schema.get("maxItems", 9), len(prefix))
    return schema


@st.composite
def one_ofs(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    """Branches that cannot overlap: distinct types, or objects with a required tag."""
    if draw(st.booleans()):
        tags = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, unique=True))
        return {"oneOf": [_tagged(tag, draw(children)) for tag in tags]}
    strategies = [integer_schemas(), string_schemas(), st.just({"type": "boolean"})]
    chosen = draw(st.lists(st.sampled_from(range(3)), min_size=2, max_size=3, unique=True))
    return {"oneOf": [draw(strategies[i]) for i in chosen]}


def _tagged(tag: str, child: Any) -> dict[str, Any]:
    props = {"kind": {"const": tag}, "data": child}
    return {"type": "object", "properties": props, "required": ["kind"]}


@st.composite
def all_ofs(draw: st.DrawFn, children: st.SearchStrategy[Any]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["bounds", "required", "annotate"]))
    if kind == "bounds":
        low = draw(st.integers(-100, 100))
        high = low + draw(st.integers(0, 100))
        return {"allOf": [{"type": "integer", "minimum": low}, {"maximum": high}]}
    if kind == "required":
        base = draw(objects(children))
        names = list(base["properties"])
        extra_required = draw(st.lists(st.sampled_from(names), unique=True))
        return {"allOf": [base, {"required": extra_required}]}
    return {"allOf": [draw(children), {"description": "annotation only"}]}


def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return (
        objects(children)
        | arrays(children)
        | st.lists(children, min_size=2, max_size=3).map(lambda b: {"anyOf": b})
        | one_ofs(children)
        | all_ofs(children)
    )


@st.composite
def schemas(draw: st.DrawFn) -> dict[str, Any]:
    defs = draw(st.dictionaries(st.sampled_from(["Address", "Item"]), LEAVES | objects(LEAVES)))
    refs = [{"$ref": f"#/$defs/{name}"} for name in defs]
    leaves = LEAVES | st.sampled_from(refs) if refs else LEAVES
    root = draw(st.recursive(leaves, extend, max_leaves=8))
    return {**root, "$defs": defs} if defs else root


PROPERTY_SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(schema=schemas(), seed=st.integers(0, 2**32), name=st.sampled_from([None, *PROPERTY_NAMES]))
def test_generated_values_validate_against_random_schemas(
    schema: dict[str, Any], seed: int, name: str | None
) -> None:
    assert_valid(schema, generate(schema, seed, name))


@PROPERTY_SETTINGS
@given(schema=schemas(), seed=st.integers(0, 2**32))
def test_same_schema_and_seed_give_the_same_value(schema: dict[str, Any], seed: int) -> None:
    first = generate(schema, seed)
    FAKER.seed_instance(seed + 1)  # disturb the shared Faker in between
    FAKER.sentence()
    assert generate(schema, seed) == first


# --- determinism ------------------------------------------------------------------------------

PERSONISH = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "email": {"type": "string", "format": "email"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "age"],
}


@pytest.mark.parametrize(
    "schema",
    [
        PERSONISH,
        {"type": "string"},
        {"type": "number"},
        {"type": "string", "pattern": r"^[A-Z]{3}-\d{4}$"},
        {"type": "array", "items": {"type": "integer"}},
        {},
    ],
)
def test_different_seeds_give_different_values(schema: dict[str, Any]) -> None:
    values = [json.dumps(generate(schema, seed), sort_keys=True) for seed in range(8)]
    assert len(set(values)) > 1


def test_value_depends_on_rng_state_not_on_faker_state() -> None:
    own = Faker()
    own.seed_instance(99)
    own.name()
    a = value_for_schema(PERSONISH, rng=random.Random(7), faker=own)
    b = value_for_schema(PERSONISH, rng=random.Random(7), faker=Faker())
    assert a == b


def test_name_changes_the_value_for_the_same_seed() -> None:
    assert generate({"type": "string"}, 3, "email") != generate({"type": "string"}, 3, "city")


# --- realistic values -------------------------------------------------------------------------

GET_WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. Boston, MA"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["location"],
}


@pytest.mark.parametrize("seed", range(10))
def test_get_weather_location_is_a_realistic_city(seed: int) -> None:
    value = generate(GET_WEATHER, seed)
    assert re.fullmatch(r"[A-Z][a-z]+( [A-Z][a-z]+)*(, [A-Z][A-Za-z]+)?", value["location"])
    assert value.get("unit", "celsius") in ("celsius", "fahrenheit")


@pytest.mark.parametrize(
    ("name", "looks_right"),
    [
        ("email", lambda v: re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]+", v)),
        ("city", lambda v: re.fullmatch(r"[A-Z][a-z]+( [A-Z][a-z]+)*", v)),
        ("country_code", lambda v: re.fullmatch(r"[A-Z]{2}", v)),
        ("first_name", lambda v: re.fullmatch(r"[A-Z][a-z'-]+", v)),
        ("description", lambda v: v.endswith(".") and len(v.split()) >= 2),
        ("user_id", lambda v: re.fullmatch(r"use_[a-z0-9]{10}", v)),
        ("website", lambda v: v.startswith(("http://", "https://"))),
        ("created_at", lambda v: dt.datetime.fromisoformat(v).year >= 2020),
    ],
)
def test_strings_are_chosen_by_property_name(name: str, looks_right: Any) -> None:
    for seed in range(5):
        value = generate({"type": "string"}, seed, name)
        assert looks_right(value), (name, value)


@pytest.mark.parametrize(
    ("name", "schema", "low", "high"),
    [
        ("age", {"type": "integer"}, 18, 90),
        ("age", {"type": "integer", "minimum": 21, "maximum": 30}, 21, 30),
        ("latitude", {"type": "number"}, -90, 90),
        ("longitude", {"type": "number"}, -180, 180),
        ("year", {"type": "integer"}, 1990, 2030),
        ("quantity", {"type": "integer", "minimum": 1}, 1, 10),
        ("probability", {"type": "number", "minimum": 0, "maximum": 1}, 0, 1),
        ("age", {"type": "integer", "minimum": 200}, 200, 300),  # name range outside bounds
    ],
)
def test_numbers_use_name_ranges_clipped_to_bounds(
    name: str, schema: dict[str, Any], low: float, high: float
) -> None:
    for seed in range(20):
        value = generate(schema, seed, name)
        assert low <= value <= high
        assert_valid(schema, value)


def test_array_items_are_named_after_the_singular_property() -> None:
    schema = {"type": "array", "items": {"type": "string"}, "minItems": 2}
    cities = generate(schema, 1, "cities")
    assert len(cities) >= 2
    for city in cities:
        assert re.fullmatch(r"[A-Z][a-z]+( [A-Z][a-z]+)*", city)


# --- objects ----------------------------------------------------------------------------------


def test_required_properties_always_present() -> None:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string"} for k in "abcdef"},
        "required": ["a", "c", "e"],
    }
    for seed in range(50):
        assert {"a", "c", "e"} <= generate(schema, seed).keys()


def test_optional_properties_are_included_about_seventy_percent_of_the_time() -> None:
    schema = {"type": "object", "properties": {k: {"type": "integer"} for k in "abcdefghij"}}
    counts = [len(generate(schema, seed)) for seed in range(100)]
    assert 0.55 < sum(counts) / (10 * len(counts)) < 0.85


def test_openai_strict_mode_schema_emits_every_property_and_nothing_else() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "nickname": {"type": ["string", "null"]},
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["street", "zip"],
                "additionalProperties": False,
            },
            "pets": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "enum": ["cat", "dog"]}},
                    "required": ["kind"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["name", "nickname", "address", "pets"],
        "additionalProperties": False,
    }
    for seed in range(30):
        value = generate(schema, seed)
        assert value.keys() == {"name", "nickname", "address", "pets"}
        assert value["address"].keys() == {"street", "zip"}
        assert_valid(schema, value)


def test_additional_properties_schema_adds_valid_extra_keys() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    values = [generate(schema, seed) for seed in range(20)]
    assert any(values)
    for value in values:
        assert_valid(schema, value)


def test_pattern_properties_with_min_properties_make_matching_keys() -> None:
    schema = {
        "type": "object",
        "patternProperties": {r"^x-[a-z]+$": {"type": "boolean"}},
        "additionalProperties": False,
        "minProperties": 2,
    }
    for seed in range(20):
        value = generate(schema, seed)
        assert len(value) >= 2
        assert_valid(schema, value)


def test_dependent_required_brings_its_dependencies() -> None:
    schema = {
        "type": "object",
        "properties": {"card": {"type": "string"}, "billing_address": {"type": "string"}},
        "dependentRequired": {"card": ["billing_address"]},
    }
    for seed in range(20):
        assert_valid(schema, generate(schema, seed))


# --- Pydantic models --------------------------------------------------------------------------


class Color(StrEnum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    street: str
    city: str
    zip_code: str = Field(pattern=r"^\d{5}$")


class Person(BaseModel):
    name: str
    age: int = Field(ge=0, le=130)
    email: str | None = None
    favorite_color: Color
    addresses: list[Address]
    score: float = Field(gt=0, lt=1)
    nicknames: list[str] = Field(default_factory=list, max_length=2)


class Node(BaseModel):
    value: int
    children: list[Node] = Field(default_factory=list)
    parent: Node | None = None


@pytest.mark.parametrize("model", [Person, Node])
def test_pydantic_model_schemas_produce_valid_models(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    for seed in range(40):
        value = generate(schema, seed)
        assert_valid(schema, value)
        model.model_validate(value)


def test_self_referencing_schema_stays_small() -> None:
    schema = Node.model_json_schema()
    sizes = [len(json.dumps(generate(schema, seed))) for seed in range(40)]
    assert max(sizes) < 20_000


def test_recursive_root_reference_terminates() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "next": {"$ref": "#"}},
        "required": ["name"],
    }
    for seed in range(20):
        assert_valid(schema, generate(schema, seed))


def test_definitions_refs_resolve() -> None:
    schema = {
        "definitions": {"Point": {"type": "array", "prefixItems": [{"type": "number"}] * 2}},
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/Point"}},
        "required": ["a"],
    }
    assert_valid(schema, generate(schema))


# --- strings, numbers, arrays, combinators --------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_pattern_generates_matching_strings(seed: int) -> None:
    value = generate({"type": "string", "pattern": r"^[A-Z]{3}-\d{4}$"}, seed)
    assert re.fullmatch(r"[A-Z]{3}-\d{4}", value)


@pytest.mark.parametrize("fmt", CLAIMED_FORMATS)
def test_formats_are_valid(fmt: str) -> None:
    schema = {"type": "string", "format": fmt}
    for seed in range(10):
        value = generate(schema, seed, "value")
        assert FORMATS.conforms(value, fmt), (fmt, value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "minimum": 5, "maximum": 7},
        {"type": "integer", "exclusiveMinimum": 5, "exclusiveMaximum": 7},
        {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.001},
        {"type": "number", "minimum": 10, "maximum": 20, "multipleOf": 0.5},
        {"type": "integer", "minimum": 1_000_000, "multipleOf": 7},
        {"type": "integer", "multipleOf": 0.5, "maximum": -3},
        {"type": "string", "minLength": 40, "maxLength": 45},
        {"type": "string", "maxLength": 3},
        {"type": "array", "minItems": 5, "maxItems": 6, "items": {"type": "boolean"}},
        {"type": "array", "items": {"enum": [1, 2, 3]}, "uniqueItems": True, "minItems": 3},
        {"type": "array", "contains": {"type": "integer"}, "minContains": 2, "items": {}},
        {"type": "array", "prefixItems": [{"type": "string"}], "items": False, "minItems": 1},
    ],
)
def test_bounds_are_respected(schema: dict[str, Any]) -> None:
    for seed in range(25):
        assert_valid(schema, generate(schema, seed))


THOUSAND = [f"value-{i}" for i in range(1000)]


@pytest.mark.parametrize(
    "items",
    [
        {"enum": THOUSAND},
        {"allOf": [{"enum": THOUSAND}, {"not": {"const": "value-1"}}]},
        {"anyOf": [{"enum": THOUSAND}, {"type": "boolean"}]},
    ],
)
def test_unique_items_take_every_enum_value_left(items: dict[str, Any]) -> None:
    """Each unique item picks among the values not taken yet (random draws that retry would
    run out of luck long before the last values)."""
    size = 999 if "allOf" in items else 1000
    schema = {"type": "array", "items": items, "minItems": size, "uniqueItems": True}
    value = generate(schema, 3)
    assert len(value) == size
    assert len(set(map(json.dumps, value))) == size
    assert_valid(schema, value)
    with pytest.raises(UnsatisfiableSchemaError, match="no further unique item"):
        generate({**schema, "minItems": size + 3 if "anyOf" in items else size + 1}, 3)


def test_draft4_boolean_exclusive_bounds_are_respected() -> None:
    schema = {
        "type": "integer",
        "minimum": 1,
        "exclusiveMinimum": True,
        "maximum": 3,
        "exclusiveMaximum": True,
    }
    for seed in range(10):
        value = generate(schema, seed)
        assert value == 2
        Draft4Validator(schema).validate(value)


def test_one_of_value_matches_exactly_one_branch() -> None:
    schema = {"oneOf": [{"type": "number"}, {"type": "integer"}]}
    for seed in range(20):
        assert_valid(schema, generate(schema, seed))


def test_one_of_discriminated_union() -> None:
    schema = {
        "oneOf": [
            _tagged("circle", {"type": "number", "minimum": 0}),
            _tagged("square", {"type": "number", "minimum": 0}),
        ]
    }
    kinds = {generate(schema, seed)["kind"] for seed in range(20)}
    assert kinds == {"circle", "square"}


def test_any_of_with_null_is_mostly_not_null() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    values = [generate(schema, seed) for seed in range(100)]
    assert 0 < values.count(None) < 40


def test_openapi_nullable_allows_null_and_values() -> None:
    values = [generate({"type": "string", "nullable": True}, seed) for seed in range(60)]
    assert None in values
    assert any(isinstance(v, str) for v in values)


def test_all_of_merges_object_parts() -> None:
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"b": {"type": "string"}}, "required": ["b"]},
        ]
    }
    for seed in range(10):
        value = generate(schema, seed)
        assert {"a", "b"} <= value.keys()
        assert_valid(schema, value)


@pytest.mark.parametrize("schema", [{}, True])
def test_empty_schema_gives_a_plausible_json_value(schema: Any) -> None:
    for seed in range(10):
        json.dumps(generate(schema, seed))


def test_not_is_honoured_by_rejection() -> None:
    schema = {"type": "integer", "minimum": 0, "maximum": 3, "not": {"const": 2}}
    for seed in range(20):
        assert generate(schema, seed) != 2


# --- unsatisfiable and unsupported schemas ---------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "minimum": 5, "maximum": 3},
        {"allOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "string", "minLength": 5, "maxLength": 2},
        {"type": "object", "required": ["a"], "additionalProperties": False},
        {"type": "object", "properties": {"next": {"$ref": "#"}}, "required": ["next"]},
        {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 3},
        {"enum": [1, 2], "type": "string"},
        {"oneOf": [{"type": "integer"}, {"type": "integer"}]},
        {"$ref": "https://example.com/schema.json"},
        {"$ref": "#/$defs/missing"},
        {"$ref": "#"},
        {"type": "string", "pattern": "(?<=a)b["},
        {"if": {"type": "string"}, "then": {"minLength": 3}},
        False,
    ],
)
def test_unsatisfiable_or_unsupported_schemas_raise(schema: Any) -> None:
    with pytest.raises(UnsatisfiableSchemaError):
        generate(schema)


def test_unsatisfiable_error_names_the_path() -> None:
    schema = {
        "type": "object",
        "properties": {"size": {"type": "integer", "minimum": 5, "maximum": 3}},
        "required": ["size"],
    }
    with pytest.raises(UnsatisfiableSchemaError, match=r"\$\.size"):
        generate(schema)


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "string", "enum": [str(i) for i in range(5000)]}, "an enum of 5000 values"),
        ({"type": "string", "minLength": 10**9}, "minLength 1000000000"),
        ({"type": "string", "pattern": "a{1000000000}"}, "a repeat count over"),
        ({"type": "integer", "multipleOf": 0}, "past what a float holds"),
        ({"type": "number", "multipleOf": 1e308}, "past what a float holds"),
        ({"type": "number", "multipleOf": 1e-320}, "past what a float holds"),
        ({"type": "number", "minimum": 1e308, "exclusiveMinimum": 1e308}, "not finite"),
    ],
    ids=[
        "huge-enum",
        "huge-min-length",
        "huge-repeat",
        "zero-multiple",
        "huge-multiple",
        "tiny-multiple",
        "inf",
    ],
)
def test_a_schema_that_cannot_be_answered_in_bounded_time_is_refused_at_once(
    schema: dict[str, Any], says: str
) -> None:
    with pytest.raises(UnsatisfiableSchemaError, match=re.escape(says)):
        value_for_schema(schema, rng=random.Random(1), faker=Faker())


def _reused_refs(levels: int, kind: str, leaf: dict[str, Any]) -> dict[str, Any]:
    """``$defs`` where each level names the next one twice: 2ⁿ paths to the leaf."""
    defs: dict[str, Any] = {
        f"d{i}": {kind: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = leaf
    return defs


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": _reused_refs(30, "allOf", {"type": "integer"}), "$ref": "#/$defs/d0"},
        {
            "$defs": _reused_refs(30, "anyOf", {"type": "string"}),
            "type": "integer",
            "not": {"$ref": "#/$defs/d0"},
        },
    ],
    ids=["allOf", "not-anyOf"],
)
def test_a_ref_reused_at_every_level_is_checked_once_per_value(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mockserver.reply.schema_values.generate import _Gen

    checks = 0
    real = _Gen.check

    def counted(self: _Gen, s: Any, v: Any, path: str) -> str | None:
        nonlocal checks
        checks += 1
        if checks > 1_000:  # along every one of the 2³⁰ paths: fail now, not in hours
            raise AssertionError("the schema is checked along every path to the leaf")
        return real(self, s, v, path)

    monkeypatch.setattr(_Gen, "check", counted)
    assert isinstance(generate(schema), int)


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "string", "pattern": "^\\ud800$"}, "lone surrogates"),
        ({"type": "string", "pattern": "^((a{100}){100}){1000}$"}, "would compile to"),
        ({"type": "string", "pattern": "^(a{999})(\\1){999}$"}, "shortest match is over"),
        (
            {"type": "object", "patternProperties": {"^x{1000}(y{1000}){101}$": {}}},
            "would compile to",
        ),
        (
            {"type": "array", "contains": {"minLength": 50_000}, "minContains": 5_000},
            "over 1,000,000 characters of text",
        ),
        (
            {"type": "string", "minLength": 100_000, "not": {"minLength": 0}},
            "over 1,000,000 characters of text",
        ),
    ],
)
def test_what_cannot_be_made_in_bounded_time_or_as_unicode_is_unsatisfiable(
    schema: dict[str, Any], problem: str
) -> None:
    with pytest.raises(UnsatisfiableSchemaError, match=re.escape(problem)):
        generate(schema)


def test_long_texts_are_made_whole() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "pattern": "^a{40000}$"},
            "b": {"type": "array", "minItems": 5, "items": {"type": "string", "minLength": 20_000}},
        },
        "required": ["a", "b"],
    }
    value = generate(schema)
    assert value["a"] == "a" * 40_000
    assert all(len(text) >= 20_000 for text in value["b"])
    assert_valid(schema, value)


@pytest.mark.parametrize("step", [1, 2])
def test_unique_integers_take_every_value_left_in_their_range(step: int) -> None:
    items = {"type": "integer", "minimum": 0, "maximum": 99 * step, "multipleOf": step}
    schema = {"type": "array", "items": items, "minItems": 100, "uniqueItems": True}
    for seed in range(5):
        value = generate(schema, seed)
        assert sorted(value) == list(range(0, 100 * step, step))
    with pytest.raises(UnsatisfiableSchemaError, match="no further unique item"):
        generate({**schema, "minItems": 101})


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "patternProperties": {"^only$": {"type": "integer"}}},
        {"type": "object", "propertyNames": {"enum": ["a"]}},
    ],
)
def test_optional_extra_keys_stop_when_no_name_is_left(schema: dict[str, Any]) -> None:
    schema = {**schema, "additionalProperties": False} if "patternProperties" in schema else schema
    for seed in range(60):
        value = generate(schema, seed)
        assert len(value) <= 1
        assert_valid(schema, value)
    with pytest.raises(UnsatisfiableSchemaError, match="no further property name"):
        generate({**schema, "minProperties": 2})


def test_enums_met_for_every_item_give_valid_items() -> None:
    halves = [{"enum": THOUSAND[::2]}, {"enum": THOUSAND[1::2]}]
    schema = {
        "type": "array",
        "minItems": 500,
        "items": {"enum": THOUSAND, "anyOf": halves},
        "contains": {"enum": THOUSAND[:10]},
    }
    value = generate(schema, 4)
    assert len(value) >= 500
    assert_valid(schema, value)


@pytest.mark.parametrize(
    "branches",
    [
        [{"const": "a", "title": "A"}, {"const": "b"}, {"const": "b", "description": "again"}],
        [{"enum": ["a"]}, {"const": "b"}, {"enum": ["b", "c"]}],
        [{"const": 1}, {"enum": [1.0, 2]}, {"const": True}],
    ],
)
def test_one_of_literal_branches_give_a_value_of_exactly_one(branches: list[Any]) -> None:
    schema = {"type": "array", "minItems": 30, "items": {"oneOf": branches}}
    for seed in range(5):
        value = generate(schema, seed)
        assert_valid(schema, value)
        assert "b" not in value  # in two branches
        assert 1 not in [v for v in value if not isinstance(v, bool)]  # 1 == 1.0, not True


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^(?=(a|a)+b)a{28}$"},  # backtracks 2²⁸ times on aaa…
        {
            "type": "object",
            "patternProperties": {"^(a|a)+b$": {"type": "integer"}},
            "properties": {"a" * 28: {"type": "integer"}},
            "required": ["a" * 28],
        },
    ],
)
def test_a_pattern_too_slow_to_check_is_refused_at_once(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsatisfiableSchemaError, match="takes too long to check"):
        value_for_schema(schema, rng=random.Random(1), faker=Faker())
