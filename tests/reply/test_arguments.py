"""``fill: generate``: scripted arguments fitted to the tool's schema."""

from __future__ import annotations

from mockserver.reply.arguments import fitted_arguments

STRICT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


def test_missing_required_properties_are_generated_in_schema_order() -> None:
    fitted = fitted_arguments(
        {"city": "Boston"}, STRICT, generated=lambda: {"city": "x", "days": 3}
    )
    assert list(fitted.items()) == [("city", "Boston"), ("days", 3)]


def test_a_closed_schema_drops_what_it_does_not_declare() -> None:
    fitted = fitted_arguments(
        {"city": "Boston", "unit": "celsius", "days": 1}, STRICT, generated=dict
    )
    assert fitted == {"city": "Boston", "days": 1}


def test_an_open_schema_keeps_extra_keys_and_generates_nothing_it_need_not() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}

    def never() -> dict[str, object]:
        raise AssertionError("nothing is missing")

    assert fitted_arguments({"city": "Rome", "unit": "c"}, schema, generated=never) == {
        "city": "Rome",
        "unit": "c",
    }


def test_a_root_ref_is_followed() -> None:
    schema = {"$ref": "#/$defs/Args", "$defs": {"Args": STRICT}}
    fitted = fitted_arguments({"city": "Oslo"}, schema, generated=lambda: {"days": 2})
    assert fitted == {"city": "Oslo", "days": 2}
