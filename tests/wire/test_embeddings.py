"""Embeddings request bodies are checked as the API checks them."""

from __future__ import annotations

from typing import Any

import pytest

from mockserver.errors import InvalidRequestError
from mockserver.wire.embeddings import INVALID_INPUT, parse_embeddings


@pytest.mark.parametrize(
    ("given", "inputs"),
    [
        ("hello", ("hello",)),
        (["a", "b"], ("a", "b")),
        ([1212, 318], ((1212, 318),)),
        ([[1, 2], [3]], ((1, 2), (3,))),
    ],
)
def test_the_four_input_shapes(given: Any, inputs: tuple[Any, ...]) -> None:
    assert parse_embeddings({"model": "m", "input": given}).inputs == inputs


@pytest.mark.parametrize(
    "given", ["", [], [""], ["a", ""], [[]], ["a", [1]], ["x"] * 2049, [1, "a"]]
)
def test_inputs_the_schema_refuses_get_the_apis_message(given: Any) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_embeddings({"model": "m", "input": given})
    assert (info.value.message, info.value.param, info.value.code) == (INVALID_INPUT, None, None)


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"model": "m"}, "input", "missing_required_parameter"),
        ({"input": "x"}, "model", "missing_required_parameter"),
        ({"model": 3, "input": "x"}, "model", "invalid_type"),
        ({"model": "m", "input": 7}, "input", "invalid_type"),
        (
            {"model": "m", "input": "x", "encoding_format": "hex"},
            "encoding_format",
            "invalid_value",
        ),
        ({"model": "m", "input": "x", "dimensions": 0}, "dimensions", "integer_below_min_value"),
        ({"model": "m", "input": "x", "dimensions": "8"}, "dimensions", "invalid_type"),
        ({"model": "m", "input": "x", "user": 1}, "user", "invalid_type"),
    ],
)
def test_bad_parameters_are_named(body: dict[str, Any], param: str, code: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_embeddings(body)
    assert (info.value.param, info.value.code) == (param, code)


def test_defaults_and_unknown_top_level_fields() -> None:
    request = parse_embeddings({"model": "m", "input": "x", "extra_gateway_field": 1})
    assert (request.encoding_format, request.dimensions) == ("float", None)
