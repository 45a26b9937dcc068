"""``POST /v1/embeddings`` request bodies, checked as the API checks them.

``input`` is a string, an array of strings, an array of token ids or an array of token-id
arrays (at most 2048 of them; no empty string, no empty array); ``model`` is required;
``encoding_format`` is ``float`` (the default) or ``base64``; ``dimensions`` an integer of at
least 1. Other top-level fields are accepted, as on the other endpoints. The token limits need
the tokenizer: ``reply/embeddings.py`` checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from mockserver.errors import InvalidRequestError
from mockserver.values import value_class
from mockserver.wire.json_body import json_type_phrase

__all__ = ["MAX_INPUTS", "EmbeddingsRequest", "Input", "parse_embeddings"]

MAX_INPUTS: Final = 2048
#: What the API answers for an input its schema refuses (an empty string, too many inputs).
INVALID_INPUT: Final = (
    "'$.input' is invalid. Please check the API reference: "
    "https://platform.openai.com/docs/api-reference."
)
#: A text to embed, or the token ids of one.
Input = str | tuple[int, ...]


@value_class
class EmbeddingsRequest:
    inputs: tuple[Input, ...]
    model: str
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = None
    user: str | None = None


def _invalid_input() -> InvalidRequestError:
    return InvalidRequestError(INVALID_INPUT)


def _type_error(param: str, expected: str, value: object) -> InvalidRequestError:
    return InvalidRequestError(
        f"Invalid type for '{param}': expected {expected}, but got {json_type_phrase(value)} "
        "instead.",
        param=param,
        code="invalid_type",
    )


def _is_token(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one(value: object) -> Input | None:
    """One input of an array, if it is one (a string, or a non-empty array of token ids)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(_is_token(v) for v in value):
        return tuple(value)
    return None


def _inputs(value: Any) -> tuple[Input, ...]:
    if value is None:
        raise InvalidRequestError(
            "Missing required parameter: 'input'.", param="input", code="missing_required_parameter"
        )
    if isinstance(value, str):
        if not value:
            raise _invalid_input()
        return (value,)
    if not isinstance(value, list):
        raise _type_error("input", "a string or an array", value)
    if not value or len(value) > MAX_INPUTS:
        raise _invalid_input()
    if all(_is_token(v) for v in value):  # one input, as token ids
        return (tuple(value),)
    inputs = [_one(v) for v in value]
    if any(i is None or i == "" for i in inputs):
        raise _invalid_input()
    kinds = {isinstance(i, str) for i in inputs}
    if len(kinds) > 1:  # strings and token arrays do not mix
        raise _invalid_input()
    return tuple(i for i in inputs if i is not None)


def _model(value: Any) -> str:
    if value is None:
        raise InvalidRequestError(
            "Missing required parameter: 'model'.", param="model", code="missing_required_parameter"
        )
    if not isinstance(value, str):
        raise _type_error("model", "a string", value)
    return value


def _encoding(value: Any) -> Literal["float", "base64"]:
    if value is None or value == "float":
        return "float"
    if value == "base64":
        return "base64"
    if not isinstance(value, str):
        raise _type_error("encoding_format", "a string", value)
    raise InvalidRequestError(
        f"Invalid value: '{value}'. Supported values are: 'float' and 'base64'.",
        param="encoding_format",
        code="invalid_value",
    )


def _dimensions(value: Any) -> int | None:
    if value is None:
        return None
    if not _is_token(value):
        raise _type_error("dimensions", "an integer", value)
    if value < 1:
        raise InvalidRequestError(
            f"Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got "
            f"{value} instead.",
            param="dimensions",
            code="integer_below_min_value",
        )
    return int(value)


def parse_embeddings(body: Mapping[str, Any]) -> EmbeddingsRequest:
    """The request ``body`` (a JSON object) as an :class:`EmbeddingsRequest`, or the API's 400."""
    user = body.get("user")
    if user is not None and not isinstance(user, str):
        raise _type_error("user", "a string", user)
    return EmbeddingsRequest(
        inputs=_inputs(body.get("input")),
        model=_model(body.get("model")),
        encoding_format=_encoding(body.get("encoding_format")),
        dimensions=_dimensions(body.get("dimensions")),
        user=user,
    )
